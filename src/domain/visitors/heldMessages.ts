import { QueryTypes, type Sequelize } from 'sequelize';

/** An agent or system message that waited for the visitor's next heartbeat, now handed over. */
export interface HeldMessage {
  id: number;
  role: 'agent' | 'system';
  content: string;
  createdAt: Date;
  /** The conversation's public id (the widget knows conversations by it). */
  conversationId: string;
}

export interface HeldFor {
  companyId: number;
  chatbotId: number;
  visitorKey: string;
}

/** One heartbeat hands over at most this many; the rest follow on the next beats. */
export const HELD_BATCH = 50;

/**
 * Takes the messages held for a visitor on one chatbot and marks them delivered in the same
 * statement, so two overlapping heartbeats (or two nodes during a shard move) never hand the same
 * message over twice: the second one's `FOR UPDATE SKIP LOCKED` / `delivered_at IS NULL` finds
 * nothing. Uses `conversations_by_visitor` to find the visitor's conversations and the partial
 * index `messages_undelivered` for their held messages. Oldest first.
 */
export async function takeHeldMessages(sequelize: Sequelize, { companyId, chatbotId, visitorKey }: HeldFor, limit = HELD_BATCH): Promise<HeldMessage[]> {
  const rows = await sequelize.query<{ id: string; role: 'agent' | 'system'; content: string; created_at: Date; public_id: string }>(
    `WITH held AS (
       SELECT m.id
         FROM conversations c
         JOIN messages m ON m.conversation_id = c.id
        WHERE c.chatbot_id = $1 AND c.visitor_key = $2 AND c.company_id = $3
          AND m.delivered_at IS NULL AND m.role IN ('agent', 'system')
        ORDER BY m.id
        LIMIT $4
          FOR UPDATE OF m SKIP LOCKED
     )
     UPDATE messages m
        SET delivered_at = now()
       FROM held, conversations c
      WHERE m.id = held.id AND c.id = m.conversation_id
     RETURNING m.id, m.role, m.content, m.created_at, c.public_id`,
    { bind: [chatbotId, visitorKey, companyId, limit], type: QueryTypes.SELECT },
  );
  // RETURNING keeps no order: sort here, by id, which is the order they were written in.
  return rows
    .map((row) => ({ id: Number(row.id), role: row.role, content: row.content, createdAt: new Date(row.created_at), conversationId: row.public_id }))
    .sort((a, b) => a.id - b.id);
}
