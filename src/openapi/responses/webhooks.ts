import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/events';
import { id, uuid } from './formats';
import { named } from './named';

/** ISO 8601 in UTC with milliseconds, as JavaScript writes it. */
const isoMillis = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/).describe('ISO 8601 in UTC with milliseconds');

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

export const webhook = named(
  'Webhook',
  z.object({
    id,
    url: z.string(),
    events: z.array(webhookEventType),
    description: z.string().nullable(),
    active: z.boolean().describe('false once deliveries failed for three days without a success; an inactive webhook gets no new events'),
    created_at: isoMillis,
  }),
);

export const createdWebhook = named(
  'CreatedWebhook',
  webhook.extend({ secret: z.string().regex(/^whsec_[\w-]{32}$/).describe('the signing secret, shown this once') }),
);

export const webhookDelivery = named(
  'WebhookDelivery',
  z.object({
    id,
    event_id: z.string().regex(/^evt_[0-9a-f-]{36}$/),
    event: z.string().describe('the event type (`webhook.test` for a test delivery)'),
    status: z.enum(['pending', 'delivered', 'failed', 'given_up']).describe('`failed`: the last attempt failed and another is scheduled (`next_attempt_at`); a test delivery is never retried'),
    attempts: z.int().min(0),
    response_status: z.int().nullable().describe("the receiver's HTTP status at the last attempt; null when none came (refused address, network error, timeout)"),
    error: z.string().nullable().describe('why the last attempt failed'),
    delivered_at: isoMillis.nullable(),
    next_attempt_at: isoMillis.nullable(),
    created_at: isoMillis,
  }),
);

export const webhookEvent = named(
  'WebhookEvent',
  z.object({
    id: z.string().regex(/^evt_[0-9a-f-]{36}$/).describe('the same on every delivery of this event: receivers deduplicate by it'),
    type: z.string().describe('conversation.created, conversation.updated, message.created, lead.created (webhook.test for a test delivery)'),
    created_at: isoMillis,
    workspace_id: id,
    conversation_id: uuid.nullable(),
    seq: z.int().min(0).describe("the event's place in its conversation's event stream: rises, with gaps"),
    data: z.looseObject({}).describe('`conversation`, `message` or `lead` in the v1 style (docs/webhooks.md "Events")'),
  }),
  'An event as webhooks deliver it and the catch-up endpoint lists it.',
);
