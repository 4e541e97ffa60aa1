import { WebhookReceiver, type Received } from '../../test/support/webhookReceiver';
import type { Check } from './checks';
import type { Cluster } from './cluster';
import { sleep } from './ports';
import type { PrivatePostgres } from './postgres';

/** What the chaos run subscribes to: everything. */
export const WEBHOOK_EVENTS = ['conversation.created', 'conversation.updated', 'message.created', 'lead.created'];

/** How long the receiver answers 500, then leaves requests hanging past the 10 s limit. */
const FAILING_MS = 6_000;
const HANGING_MS = 12_000;
/** After the load, how long the deliveries may take to drain (the retry schedule's 10 s and 1 min waits included). */
const DRAIN_LIMIT_MS = 240_000;

export interface WebhookFigures {
  events: number;
  conversations: number;
  /** Requests the receiver got, accepted (2xx) or not. */
  requests: number;
  accepted: number;
  /** Accepted requests minus distinct accepted ids: what the receiver's dedupe by id removed. */
  duplicatesBeforeDedupe: number;
  refusedByReceiver: number;
  unverified: number;
  /** From an event's commit to its first accepted delivery, seconds. */
  delayP50_s: number;
  delayMax_s: number;
  /** After the load stopped, until every delivery was delivered. */
  drain_s: number;
  deliveries: Record<string, number>;
  fault: { worker_killed_at_s: number; receiver_failing_s: number; receiver_hanging_s: number; in_flight_at_kill: number };
}

/** The integrator's endpoint for the run: verifies every signature (test/support/webhookReceiver.ts) and records every id. */
export async function startReceiver(): Promise<WebhookReceiver> {
  return WebhookReceiver.start();
}

/**
 * The receiver fails for a while (500s, then requests left hanging until the sender's 10 s limit), and
 * the worker is killed with -9 while deliveries are in flight and started again, as a supervisor
 * would. `during` runs meanwhile (the run kills a web node in it). Returns what happened, times from `since`.
 */
export async function webhookFault(
  cluster: Cluster,
  postgres: PrivatePostgres,
  receiver: WebhookReceiver,
  since: number,
  during: () => Promise<void>,
): Promise<WebhookFigures['fault']> {
  receiver.answer(500);
  const others = during();
  await sleep(FAILING_MS);
  receiver.answer('hang');
  // Deliveries are claimed and waiting on the hanging receiver: that is "mid-delivery".
  await sleep(2_000);
  const [{ n }] = await postgres.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE leased_until > now()');
  const killedAt = Date.now();
  await cluster.worker.crash();
  await cluster.worker.start();
  await sleep(Math.max(0, HANGING_MS - 2_000 - (Date.now() - killedAt)));
  receiver.answer(200);
  await others;
  return { worker_killed_at_s: Math.round((killedAt - since) / 100) / 10, receiver_failing_s: FAILING_MS / 1000, receiver_hanging_s: HANGING_MS / 1000, in_flight_at_kill: Number(n) };
}

interface EventRow {
  id: string;
  conversation: string;
  seq: string;
  created_ms: string;
}

/** Waits until no delivery is open any more (bounded), then checks what the receiver got against every committed event. */
export async function webhookChecks(
  postgres: PrivatePostgres,
  receiver: WebhookReceiver,
  fault: WebhookFigures['fault'],
  log: (line: string) => void,
): Promise<{ figures: WebhookFigures; checks: Check[] }> {
  const drainStarted = Date.now();
  const open = async () => Number((await postgres.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'failed')`))[0]!.n);
  let left = await open();
  while (left > 0 && Date.now() - drainStarted < DRAIN_LIMIT_MS) {
    await sleep(1_000);
    left = await open();
  }
  const drain_s = Math.round((Date.now() - drainStarted) / 100) / 10;
  log(`  webhook deliveries drained after ${drain_s} s (${left} still open)`);

  const events = await postgres.query<EventRow>(
    `SELECT 'evt_' || e.id AS id, c.public_id AS conversation, e.seq, (EXTRACT(EPOCH FROM e.created_at) * 1000)::bigint AS created_ms
     FROM integration_events e JOIN conversations c ON c.id = e.conversation_id ORDER BY c.public_id, e.seq`,
  );
  const deliveries = Object.fromEntries(
    (await postgres.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')).map((r) => [r.status, Number(r.n)]),
  );
  const received = receiver.received;
  const accepted = received.filter((r) => r.answered >= 200 && r.answered < 300);
  const firstAccepted = new Map<string, Received>();
  for (const r of accepted) if (!firstAccepted.has(r.id)) firstAccepted.set(r.id, r);
  const committed = new Map(events.map((e) => [e.id, e]));

  const missing = events.filter((e) => !firstAccepted.has(e.id));
  const unknown = [...firstAccepted.keys()].filter((id) => !committed.has(id));
  const unverified = received.filter((r) => !r.verified);

  // Order: per conversation, accepted deliveries (duplicates included) never go back in seq.
  const outOfOrder: string[] = [];
  const lastSeq = new Map<string, number>();
  for (const r of accepted) {
    const key = r.conversationId ?? '';
    const before = lastSeq.get(key) ?? -1;
    if (r.seq < before) outOfOrder.push(`${key}: seq ${r.seq} accepted after seq ${before}`);
    lastSeq.set(key, Math.max(before, r.seq));
  }
  const delays = events
    .map((e) => (firstAccepted.get(e.id)?.at ?? NaN) - Number(e.created_ms))
    .filter((d) => Number.isFinite(d))
    .sort((a, b) => a - b);
  const seconds = (ms: number | undefined) => Math.round((ms ?? 0) / 100) / 10;
  const figures: WebhookFigures = {
    events: events.length,
    conversations: new Set(events.map((e) => e.conversation)).size,
    requests: received.length,
    accepted: accepted.length,
    duplicatesBeforeDedupe: accepted.length - firstAccepted.size,
    refusedByReceiver: received.filter((r) => r.answered !== 0 && (r.answered < 200 || r.answered >= 300)).length + received.filter((r) => r.answered === 0).length,
    unverified: unverified.length,
    delayP50_s: seconds(delays[Math.floor(delays.length / 2)]),
    delayMax_s: seconds(delays.at(-1)),
    drain_s,
    deliveries,
    fault,
  };
  const checks: Check[] = [
    {
      name: 'webhooks: every committed event was delivered (accepted by the receiver) at least once',
      pass: missing.length === 0 && events.length > 0 && left === 0,
      detail: `${events.length - missing.length} of ${events.length} events accepted; ${left} deliveries still open after ${drain_s} s`,
      examples: missing.slice(0, 5).map((e) => `${e.id} (${e.conversation} seq ${e.seq}) never accepted`),
    },
    {
      name: 'webhooks: exactly once after dedupe by id (no id the database does not have)',
      pass: unknown.length === 0 && missing.length === 0,
      detail: `${firstAccepted.size} distinct ids accepted for ${events.length} events; ${figures.duplicatesBeforeDedupe} duplicates removed by the dedupe`,
      examples: unknown.slice(0, 5),
    },
    {
      name: 'webhooks: in seq order per conversation',
      pass: outOfOrder.length === 0,
      detail: `${accepted.length} accepted deliveries over ${figures.conversations} conversations, ${outOfOrder.length} went back in seq`,
      examples: outOfOrder.slice(0, 5),
    },
    {
      name: 'webhooks: every request carried a valid signature',
      pass: unverified.length === 0 && received.length > 0,
      detail: `${received.length - unverified.length} of ${received.length} verified`,
      examples: unverified.slice(0, 5).map((r) => `${r.id} ${String(r.headers['parley-signature'])}`),
    },
  ];
  return { figures, checks };
}
