/**
 * The events integrators hear (docs/webhooks.md "Events"), and the one envelope every event travels
 * in, by webhook and by the v1 catch-up endpoint alike.
 */
export const WEBHOOK_EVENT_TYPES = ['conversation.created', 'conversation.updated', 'message.created', 'lead.created'] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test delivery's type (`POST /api/portal/webhooks/{id}/test`): never stored with a conversation, never subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** An event as stored in `integration_events`, joined with its conversation's public id. */
export interface StoredEvent {
  id: string;
  type: string;
  createdAt: Date;
  companyId: number;
  conversationPublicId: string | null;
  seq: number;
  data: unknown;
}

/** What an integrator receives: the body of a delivery and one item of the catch-up list. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  workspace_id: number;
  conversation_id: string | null;
  seq: number;
  data: unknown;
}

/** `evt_<uuid>`: the prefix tells an event id from every other id an integrator stores. */
export const eventIdOf = (uuid: string): string => `evt_${uuid}`;

export function envelopeOf(event: StoredEvent): EventEnvelope {
  return {
    id: eventIdOf(event.id),
    type: event.type,
    created_at: event.createdAt.toISOString(),
    workspace_id: Number(event.companyId),
    conversation_id: event.conversationPublicId,
    seq: Number(event.seq),
    data: event.data,
  };
}

/** The columns `envelopeOf` reads, selected from `integration_events e` joined to `conversations c`. */
export const EVENT_COLUMNS = `e.id, e.type, e.created_at AS "createdAt", e.company_id AS "companyId", c.public_id AS "conversationPublicId", e.seq, e.data`;
