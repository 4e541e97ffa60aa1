import { QueryTypes } from 'sequelize';
import type { SecretBox } from '../../security/encryption';
import { Webhook } from '../../models';
import { envelopeOf, EVENT_COLUMNS, type StoredEvent } from './events';
import type { DeliveryChain } from './jobs';
import { DEACTIVATE_AFTER_MS, retryDelayAfter } from './schedule';
import { sendEvent, type SendResult, type WebhookRuntime } from './send';
import { signatureHeader } from './signature';

/**
 * A claim on a delivery lasts this long: longer than an attempt may take, so a live sender always
 * settles before it lapses, and a sender that died (kill -9) leaves a claim the sweep takes over after it.
 */
const LEASE_SECONDS = 30;

/** One run of a chain stops after this many deliveries, so a long backlog does not hold a job slot for ever; the sweep continues it. */
const MAX_PER_RUN = 200;

/** A delivery claimed for one attempt, with what sending it needs. */
interface Claimed extends StoredEvent {
  deliveryId: number;
  attempts: number;
  webhookId: number;
  url: string;
  secretEncrypted: string;
}

const OPEN = `('pending', 'failed')`;

/**
 * Claims the chain's oldest open delivery if it is due and unclaimed, counting the attempt. Only the
 * head of a chain is ever claimed, so event N+1 of a conversation is not sent to a webhook before
 * event N was delivered or given up: that is the order guarantee. Two runners of one chain cannot both
 * claim: the second one's update finds the lease already set.
 */
async function claimHead({ webhookId, conversationId }: DeliveryChain): Promise<Claimed | undefined> {
  const [row] = await Webhook.sequelize!.query<Claimed>(
    `UPDATE webhook_deliveries d
     SET leased_until = now() + interval '${LEASE_SECONDS} seconds', attempts = d.attempts + 1, updated_at = now()
     FROM webhooks w, integration_events e LEFT JOIN conversations c ON c.id = e.conversation_id
     WHERE d.id = (SELECT id FROM webhook_deliveries WHERE webhook_id = :webhookId AND conversation_id = :conversationId AND status IN ${OPEN} ORDER BY seq, id LIMIT 1)
       AND d.status IN ${OPEN} AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
       AND w.id = d.webhook_id AND w.active AND e.id = d.event_id
     RETURNING d.id AS "deliveryId", d.attempts, w.id AS "webhookId", w.url, w.secret_encrypted AS "secretEncrypted", ${EVENT_COLUMNS}`,
    { type: QueryTypes.SELECT, replacements: { webhookId, conversationId } },
  );
  return row;
}

/** Signs and POSTs one claimed delivery. */
async function attempt(claimed: Claimed, secrets: SecretBox, runtime: WebhookRuntime): Promise<SendResult> {
  const envelope = envelopeOf(claimed);
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  return sendEvent(
    claimed.url,
    body,
    {
      'Parley-Signature': signatureHeader(secrets.open(claimed.secretEncrypted), timestamp, body),
      'Parley-Event-Id': envelope.id,
      'Parley-Event-Type': envelope.type,
    },
    runtime,
  );
}

/**
 * Records an attempt's outcome, fenced by the attempt number: if the claim lapsed and another runner
 * took the delivery over meanwhile, this outcome is stale and changes nothing. A failure schedules the
 * next attempt (or gives up after the last) and counts toward the webhook's three days of failure;
 * a success ends that count. Returns false when a failure set the webhook inactive.
 */
async function settle(claimed: Claimed, result: SendResult, retry: boolean): Promise<boolean> {
  const delay = retry ? retryDelayAfter(claimed.attempts) : null;
  const status = result.delivered ? 'delivered' : delay === null && retry ? 'given_up' : 'failed';
  const sequelize = Webhook.sequelize!;
  await sequelize.query(
    `UPDATE webhook_deliveries SET status = :status, leased_until = NULL, updated_at = now(),
       response_status = :responseStatus, response_body = :responseBody, error = :error,
       delivered_at = CASE WHEN :delivered THEN now() ELSE NULL END,
       next_attempt_at = CASE WHEN CAST(:delay AS int) IS NULL THEN NULL ELSE now() + make_interval(secs => CAST(:delay AS int) / 1000.0) END
     WHERE id = :id AND attempts = :attempts`,
    {
      replacements: {
        id: claimed.deliveryId,
        attempts: claimed.attempts,
        status,
        responseStatus: result.status,
        responseBody: result.body,
        error: result.error,
        delivered: result.delivered,
        delay: result.delivered ? null : delay,
      },
    },
  );
  if (!retry) return true;
  if (result.delivered) {
    await sequelize.query('UPDATE webhooks SET failing_since = NULL, updated_at = now() WHERE id = :id AND failing_since IS NOT NULL', { replacements: { id: claimed.webhookId } });
    return true;
  }
  const [row] = await sequelize.query<{ active: boolean }>(
    `UPDATE webhooks SET failing_since = COALESCE(failing_since, now()), updated_at = now(),
       active = active AND COALESCE(failing_since, now()) > now() - make_interval(secs => :after / 1000.0)
     WHERE id = :id RETURNING active`,
    { type: QueryTypes.SELECT, replacements: { id: claimed.webhookId, after: DEACTIVATE_AFTER_MS } },
  );
  if (row?.active) return true;
  // Deactivated: what it still owed is given up (the catch-up endpoint has every event), so no sweep reads it again.
  await sequelize.query(
    `UPDATE webhook_deliveries SET status = 'given_up', next_attempt_at = NULL, leased_until = NULL, updated_at = now(), error = COALESCE(error, 'the webhook was set inactive')
     WHERE webhook_id = :id AND status IN ${OPEN}`,
    { replacements: { id: claimed.webhookId } },
  );
  return false;
}

/**
 * The `webhook-deliver` job: sends the chain's due deliveries one after another, oldest `seq` first,
 * and stops at the first that is not due (waiting for its retry), claimed elsewhere, or failed now
 * (the rest wait behind it). Sending is at least once: a runner that dies after the receiver got an
 * event but before recording it leaves a claim that lapses, and the event is sent again with the same id.
 */
export async function deliverChain(chain: DeliveryChain, secrets: SecretBox, runtime: WebhookRuntime): Promise<void> {
  for (let sent = 0; sent < MAX_PER_RUN; sent += 1) {
    const claimed = await claimHead(chain);
    if (!claimed) return;
    const result = await attempt(claimed, secrets, runtime);
    await settle(claimed, result, true);
    if (!result.delivered) return;
  }
}

/** The test delivery's single attempt: recorded in the log like any other, never retried, and not counted against the webhook. */
export async function attemptOnce(deliveryId: number, secrets: SecretBox, runtime: WebhookRuntime): Promise<SendResult> {
  const [claimed] = await Webhook.sequelize!.query<Claimed>(
    `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now()
     FROM webhooks w, integration_events e LEFT JOIN conversations c ON c.id = e.conversation_id
     WHERE d.id = :deliveryId AND w.id = d.webhook_id AND e.id = d.event_id
     RETURNING d.id AS "deliveryId", d.attempts, w.id AS "webhookId", w.url, w.secret_encrypted AS "secretEncrypted", ${EVENT_COLUMNS}`,
    { type: QueryTypes.SELECT, replacements: { deliveryId } },
  );
  if (!claimed) throw new Error(`delivery ${deliveryId} not found`);
  const result = await attempt(claimed, secrets, runtime);
  await settle(claimed, result, false);
  return result;
}
