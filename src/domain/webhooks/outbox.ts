import { QueryTypes, type Transaction } from 'sequelize';
import type { JobQueue } from '../../jobs/definitions';
import { Webhook } from '../../models';
import type { WebhookEventType } from './events';
import type { DeliveryChain } from './jobs';

/** One event of a conversation write, with the `seq` the write gave it in the conversation's event stream. */
export interface OutboxEvent {
  type: WebhookEventType;
  seq: number;
  data: unknown;
}

/**
 * The outbox: stores a write's events inside the write's own transaction, so an event exists exactly
 * when the change it describes committed, and in the same statement queues one delivery per active
 * webhook of the workspace subscribed to its type. One round trip per write, whatever the number of
 * events and webhooks; the events are always stored (the v1 catch-up endpoint reads them), deliveries
 * only where someone listens. Returns the chains to start once the transaction commits.
 */
export async function recordEvents(
  conversation: { id: number; companyId: number },
  events: readonly OutboxEvent[],
  transaction: Transaction,
): Promise<DeliveryChain[]> {
  if (events.length === 0) return [];
  const rows = await Webhook.sequelize!.query<{ webhookId: number }>(
    `WITH stored AS (
       INSERT INTO integration_events (company_id, conversation_id, seq, type, data)
       SELECT :companyId, :conversationId, item.seq, item.type, item.data
       FROM json_to_recordset(CAST(:items AS json)) AS item(seq bigint, type text, data json)
       RETURNING id, type, seq
     ), queued AS (${queueDeliveries('stored', ':companyId', ':conversationId')})
     SELECT DISTINCT webhook_id AS "webhookId" FROM queued`,
    {
      type: QueryTypes.SELECT,
      transaction,
      replacements: { companyId: conversation.companyId, conversationId: conversation.id, items: JSON.stringify(events) },
    },
  );
  return rows.map((row) => ({ webhookId: Number(row.webhookId), conversationId: Number(conversation.id) }));
}

/**
 * The deliveries of the events a statement just stored (its CTE `stored`, returning id, type and seq):
 * one per active webhook of the workspace subscribed to the event's type, returning `webhook_id`.
 * Shared by every statement that writes the outbox, so they all queue alike.
 */
export function queueDeliveries(stored: string, companyId: string, conversationId: string): string {
  return `INSERT INTO webhook_deliveries (webhook_id, event_id, conversation_id, seq, next_attempt_at)
       SELECT w.id, ${stored}.id, ${conversationId}, ${stored}.seq, now()
       FROM ${stored} JOIN webhooks w ON w.company_id = ${companyId} AND w.active AND ${stored}.type = ANY (w.events)
       RETURNING webhook_id`;
}

/**
 * Starts the delivery of chains that just got events, once their write committed. Not awaited by the
 * write: a queue that is down delays delivery until the next sweep (`startDeliverySweep`), it loses nothing.
 */
export function startDeliveries(jobs: JobQueue, chains: readonly DeliveryChain[], onError: (error: unknown) => void): void {
  for (const chain of chains) jobs.enqueue('webhook-deliver', chain).catch(onError);
}
