import type { Received } from './liveInboxAgent';

/** What one agent saw, as the checks need it. */
export interface AgentRecord {
  index: number;
  userId: number;
  node: number;
  received: readonly Received[];
  watchingSince: ReadonlyMap<string, number>;
}

/** A stored message of a watched conversation (from the database). */
export interface StoredMessage {
  id: number;
  conversationId: string;
  createdAt: number;
}

/** A measured message: its text names the key, and the send was timed (performance.now()) on `node`. */
export interface Sent {
  sentAt: number;
  node: number;
}

export interface Verdict {
  /** (agent, conversation) pairs checked. */
  pairs: number;
  /** Stored messages created after the agent's subscription that its socket never got. */
  missing: number;
  /** A `message.created` received twice, or a `typing` / `conversation.watchers` repeating the previous one of its kind unchanged. */
  duplicates: number;
  /** An event whose `seq` is lower than one received before it on the same conversation. */
  outOfOrder: number;
  /** A `message.created` for a message the database does not have in that conversation. */
  unknown: number;
  /** The last `conversation.watchers` an agent got does not list exactly who watches (or it got none). */
  staleWatchers: number;
  counts: Record<Received['event'], number>;
  /** Send-to-receipt times of measured messages, in ms: every receipt, and those on a node other than the sender's. */
  latencies: { all: number[]; crossNode: number[] };
  examples: string[];
}

export const MEASURED = /^live (\d+)$/;
export const measuredText = (key: number): string => `live ${key}`;

const MAX_EXAMPLES = 8;

/** Checks every agent's record of every conversation it watched against the database and against the contract. */
export function judge(agents: readonly AgentRecord[], stored: readonly StoredMessage[], watchers: ReadonlyMap<string, ReadonlySet<number>>, sent: ReadonlyMap<number, Sent>): Verdict {
  const verdict: Verdict = {
    pairs: 0,
    missing: 0,
    duplicates: 0,
    outOfOrder: 0,
    unknown: 0,
    staleWatchers: 0,
    counts: { 'message.created': 0, typing: 0, 'conversation.watchers': 0 },
    latencies: { all: [], crossNode: [] },
    examples: [],
  };
  const fault = (kind: keyof Pick<Verdict, 'missing' | 'duplicates' | 'outOfOrder' | 'unknown' | 'staleWatchers'>, what: string) => {
    verdict[kind]++;
    if (verdict.examples.length < MAX_EXAMPLES) verdict.examples.push(what);
  };
  const storedBy = new Map<string, StoredMessage[]>();
  for (const message of stored) storedBy.set(message.conversationId, [...(storedBy.get(message.conversationId) ?? []), message]);

  for (const agent of agents) {
    for (const [conversationId, since] of agent.watchingSince) {
      verdict.pairs++;
      const where = `agent ${agent.index}, conversation ${conversationId}`;
      const events = agent.received.filter((r) => r.conversationId === conversationId);
      const storedIds = new Set((storedBy.get(conversationId) ?? []).map((m) => m.id));
      const seen = new Set<number>();
      const lastOfKind = new Map<string, string>();
      let highest = Number.NEGATIVE_INFINITY;
      for (const event of events) {
        verdict.counts[event.event]++;
        if (event.seq < highest) fault('outOfOrder', `${where}: ${event.event} seq ${event.seq} after seq ${highest}`);
        highest = Math.max(highest, event.seq);
        if (event.event === 'message.created') {
          const id = Number(event.data.id);
          if (seen.has(id)) fault('duplicates', `${where}: message ${id} twice`);
          seen.add(id);
          if (!storedIds.has(id)) fault('unknown', `${where}: message ${id} is not stored in it`);
          const match = typeof event.data.content === 'string' ? MEASURED.exec(event.data.content) : null;
          const send = match ? sent.get(Number(match[1])) : undefined;
          if (send) {
            verdict.latencies.all.push(event.at - send.sentAt);
            if (send.node !== agent.node) verdict.latencies.crossNode.push(event.at - send.sentAt);
          }
          continue;
        }
        // Only changes go out: the same typist's same state, or the same watcher list, twice in a row at one seq is a duplicate.
        const kind = event.event === 'typing' ? `typing:${String(event.data.who)}:${String(event.data.name)}` : 'watchers';
        const state = `${event.seq}:${JSON.stringify(event.event === 'typing' ? [event.data.typing, event.data.preview] : event.data.watchers)}`;
        if (lastOfKind.get(kind) === state) fault('duplicates', `${where}: ${event.event} repeated unchanged (${state})`);
        lastOfKind.set(kind, state);
      }
      for (const message of storedBy.get(conversationId) ?? []) {
        if (message.createdAt > since && !seen.has(message.id)) fault('missing', `${where}: message ${message.id} never arrived`);
      }
      const lastWatchers = events.filter((e) => e.event === 'conversation.watchers').at(-1);
      const listed = new Set(((lastWatchers?.data.watchers ?? []) as Array<{ id: number }>).map((w) => w.id));
      const expected = watchers.get(conversationId) ?? new Set<number>();
      if (!lastWatchers || listed.size !== expected.size || [...expected].some((id) => !listed.has(id))) {
        fault('staleWatchers', `${where}: last conversation.watchers lists [${[...listed].join(',')}], watching: [${[...expected].join(',')}]`);
      }
    }
  }
  return verdict;
}
