import { randomUUID } from 'node:crypto';
/** Who sent a request: a widget visitor, an agent, or the recovery probe (also an agent). */
export type Sender = 'visitor' | 'agent' | 'probe';

/** One HTTP attempt, as the load saw it. Times are Date.now() milliseconds. */
export interface Attempt {
  sender: Sender;
  who: string;
  /** Known once the conversation exists (a visitor's first message learns it from `meta`). */
  conversationId: string | undefined;
  clientId: string;
  /** The web node the balancer sent it to. */
  node: string;
  startedAt: number;
  endedAt: number;
  ok: boolean;
  /** The HTTP status answered (0: none, the connection was refused, reset or timed out), and its `Retry-After`. */
  status: number;
  retryAfter: string | undefined;
  /** `done`, `handoff`, `200`, or what went wrong: `http 503 actor_unavailable`, `sse internal`, `ECONNREFUSED`, `timeout`, `cut after meta`... */
  outcome: string;
}

/** A visitor message, from its first attempt to its last. */
export interface VisitorMessage {
  visitor: string;
  handoff: boolean;
  clientId: string;
  text: string;
  conversationIds: Set<string>;
  /** `visitor_message_id` of every `meta` received: acknowledged once this has one; must never hold two. */
  visitorMessageIds: Set<number>;
  /** `message_id` of every `done` received: must never hold two. */
  answerIds: Set<number>;
  /** The deltas of the attempt that ended with `done`, joined. */
  answerText: string | undefined;
  attempts: number;
  /** How the message ended: answered (done), held (error handoff: a person has it), or given up. */
  result: 'answered' | 'held' | 'gave-up' | 'pending';
}

/** A message about to be sent for the first time, journaled before it is: `[client id] question`. */
export function journalVisitorMessage(journal: Journal, visitor: string, handoff: boolean, question: string): VisitorMessage {
  const clientId = randomUUID();
  const message: VisitorMessage = {
    visitor,
    handoff,
    clientId,
    text: `[${clientId}] ${question}`,
    conversationIds: new Set(),
    visitorMessageIds: new Set(),
    answerIds: new Set(),
    answerText: undefined,
    attempts: 0,
    result: 'pending',
  };
  journal.messages.push(message);
  return message;
}

export interface AgentReply {
  sender: 'agent' | 'probe';
  agent: string;
  conversationId: string;
  clientId: string;
  /** `message.id` of every 200 received: acknowledged once this has one; must never hold two. */
  messageIds: Set<number>;
  attempts: number;
  result: 'sent' | 'gave-up' | 'pending';
}

export class Journal {
  readonly attempts: Attempt[] = [];
  readonly messages: VisitorMessage[] = [];
  readonly replies: AgentReply[] = [];
  /** Conversations opened by handoff visitors, for agents to reply in. */
  readonly handoffConversations: string[] = [];

  /** When the most recent failed attempt ended (0 if none). */
  lastFailureEnd(): number {
    let last = 0;
    for (const a of this.attempts) if (!a.ok && a.endedAt > last) last = a.endedAt;
    return last;
  }
}
