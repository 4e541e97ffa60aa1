import { eventIdOf } from '../domain/webhooks/events';
import type { DeliveryRow } from '../domain/webhooks/manage';
import type { Webhook } from '../models';

/** A webhook in the portal; the secret is never part of it (it is shown once, at creation). */
export const presentWebhook = (webhook: Webhook) => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.events,
  description: webhook.description ?? null,
  active: webhook.active,
  created_at: webhook.createdAt.toISOString(),
});

export const presentCreatedWebhook = (webhook: Webhook, secret: string) => ({ ...presentWebhook(webhook), secret });

const iso = (at: Date | null): string | null => (at ? new Date(at).toISOString() : null);

/** One line of the delivery log. */
export const presentDelivery = (row: DeliveryRow) => ({
  id: Number(row.id),
  event_id: eventIdOf(row.eventId),
  event: row.event,
  status: row.status,
  attempts: Number(row.attempts),
  response_status: row.responseStatus === null ? null : Number(row.responseStatus),
  error: row.error,
  delivered_at: iso(row.deliveredAt),
  next_attempt_at: iso(row.nextAttemptAt),
  created_at: new Date(row.createdAt).toISOString(),
});
