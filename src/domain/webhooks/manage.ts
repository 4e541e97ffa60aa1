import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { notFound, validationFailed } from '../../errors';
import { AddressRefused, checkLiteralHost, outboundPolicy } from '../../net/outboundAddress';
import type { SecretBox } from '../../security/encryption';
import { Webhook } from '../../models';
import { attemptOnce } from './deliver';
import { TEST_EVENT_TYPE, type WebhookEventType } from './events';
import type { SendResult, WebhookRuntime } from './send';

/** Webhooks one workspace may register: enough for every integration it runs, few enough that one write never fans out widely. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

export interface WebhookInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null;
}

/** `whsec_` and 32 random characters: the prefix tells a webhook secret apart in a password manager or a leaked log. */
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

/**
 * A destination's host may not be an IP literal the address rules refuse (a name is vetted when it is
 * resolved, at every delivery); 422 on `url` otherwise. The same rules as the crawler's, lifted by
 * WEBHOOK_ALLOW_PRIVATE for tests.
 */
export function refusedDestination(url: string, allowPrivate: boolean): string | undefined {
  try {
    checkLiteralHost(new URL(url).hostname, outboundPolicy(allowPrivate));
    return undefined;
  } catch (error) {
    if (error instanceof AddressRefused) return `The url may not point at ${error.description}.`;
    throw error;
  }
}

/** Registers a webhook; the secret comes back this once, in clear, and is stored sealed under APP_KEY. */
export async function createWebhook(
  companyId: number,
  input: WebhookInput,
  options: { secrets: SecretBox; allowPrivate: boolean },
): Promise<{ webhook: Webhook; secret: string }> {
  const refused = refusedDestination(input.url, options.allowPrivate);
  if (refused) throw validationFailed({ url: [refused] });
  if ((await Webhook.count({ where: { companyId } })) >= MAX_WEBHOOKS_PER_WORKSPACE) {
    throw validationFailed({ url: [`A workspace may have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`] });
  }
  const secret = newSecret();
  const webhook = await Webhook.create({
    companyId,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    secretEncrypted: options.secrets.seal(secret),
  });
  return { webhook, secret };
}

export const listWebhooks = (companyId: number): Promise<Webhook[]> => Webhook.findAll({ where: { companyId }, order: [['id', 'ASC']] });

/** The workspace's webhook, 404 for another workspace's or a missing one. */
export async function findWebhook(companyId: number, id: string | number): Promise<Webhook> {
  const key = Number(id);
  const webhook = Number.isSafeInteger(key) && key > 0 ? await Webhook.findOne({ where: { id: key, companyId } }) : null;
  if (!webhook) throw notFound('Webhook');
  return webhook;
}

/** Deletes the webhook with its delivery log; undelivered events are not sent to it any more. */
export async function deleteWebhook(companyId: number, id: string | number): Promise<void> {
  const webhook = await findWebhook(companyId, id);
  await webhook.destroy();
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'given_up';

/** A delivery as the log shows it. */
export interface DeliveryRow {
  id: number;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", e.type AS event, d.status, d.attempts, d.response_status AS "responseStatus", d.error,
  d.delivered_at AS "deliveredAt", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt"`;

/** The webhook's newest deliveries first (index webhook_deliveries_log). */
export async function listDeliveries(webhook: Webhook, limit: number): Promise<DeliveryRow[]> {
  return Webhook.sequelize!.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN integration_events e ON e.id = d.event_id
     WHERE d.webhook_id = :webhookId ORDER BY d.id DESC LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { webhookId: webhook.id, limit } },
  );
}

async function deliveryById(id: number): Promise<DeliveryRow> {
  const [row] = await Webhook.sequelize!.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN integration_events e ON e.id = d.event_id WHERE d.id = :id`,
    { type: QueryTypes.SELECT, replacements: { id } },
  );
  if (!row) throw notFound('Delivery');
  return row;
}

/**
 * The portal's "send a test": a `webhook.test` event, signed like any other, sent once now (whether the
 * webhook is active or not) and kept in the delivery log. It belongs to no conversation and is never
 * retried, and its outcome does not count toward deactivation.
 */
export async function sendTestEvent(webhook: Webhook, secrets: SecretBox, runtime: WebhookRuntime): Promise<{ delivery: DeliveryRow; result: SendResult }> {
  const [stored] = await Webhook.sequelize!.query<{ deliveryId: number }>(
    `WITH event AS (
       INSERT INTO integration_events (company_id, conversation_id, seq, type, data)
       VALUES (:companyId, NULL, 0, :type, CAST(:data AS json)) RETURNING id
     )
     INSERT INTO webhook_deliveries (webhook_id, event_id, conversation_id, seq, status)
     SELECT :webhookId, event.id, NULL, 0, 'pending' FROM event RETURNING id AS "deliveryId"`,
    {
      type: QueryTypes.SELECT,
      replacements: {
        companyId: webhook.companyId,
        webhookId: webhook.id,
        type: TEST_EVENT_TYPE,
        data: JSON.stringify({ webhook_id: webhook.id, message: 'A test delivery from Parley: your endpoint received and can verify it.' }),
      },
    },
  );
  const deliveryId = Number(stored!.deliveryId);
  const result = await attemptOnce(deliveryId, secrets, runtime);
  return { delivery: await deliveryById(deliveryId), result };
}
