import { QueryTypes } from 'sequelize';
import { Webhook, type Conversation } from '../../models';
import { EVENT_COLUMNS, type StoredEvent } from './events';

/**
 * A conversation's events after `afterSeq`, oldest first (index integration_events_by_conversation):
 * what an integrator that missed deliveries reads to catch up. The caller found the conversation in
 * its own workspace. One more row than asked for is read to tell whether more follow.
 */
export async function eventsAfter(conversation: Conversation, afterSeq: number, limit: number): Promise<{ events: StoredEvent[]; more: boolean }> {
  const rows = await Webhook.sequelize!.query<StoredEvent>(
    `SELECT ${EVENT_COLUMNS} FROM integration_events e JOIN conversations c ON c.id = e.conversation_id
     WHERE e.conversation_id = :conversationId AND e.seq > :afterSeq ORDER BY e.seq LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { conversationId: conversation.id, afterSeq, limit: limit + 1 } },
  );
  return { events: rows.slice(0, limit), more: rows.length > limit };
}
