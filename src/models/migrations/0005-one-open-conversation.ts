import type { Migration } from './types';

const INDEX = 'conversations_one_open_per_visitor';

/**
 * One open (not closed) conversation per visitor and chatbot, held by the database: the visitor's
 * actor chooses the conversation an invite goes into, and this index settles the races that remain
 * (a visitor's first message and an invite at once, two owners during a shard move).
 *
 * Existing duplicates are closed first, keeping the newest open one (by creation, then id): the
 * others end as a widget's "new chat" ends them (closed, no resolution, nobody waiting), so their
 * transcripts stay readable and an agent may still reopen one once the newest is closed.
 *
 * CONCURRENTLY, as 0003: the build does not block visitors' writes. A duplicate written between the
 * clean-up and the build fails the build; the rerun drops the invalid index and cleans up again.
 */
export const oneOpenConversation: Migration = {
  name: '0005-one-open-conversation',
  async up({ context: db }) {
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`);
    await db.query(`
      UPDATE conversations c
         SET status = 'closed', handoff_state = 'bot_active', resolution = NULL, resolved_at = now(),
             handoff_requested_at = NULL, escalated = false, updated_at = now()
        FROM (SELECT id, row_number() OVER (PARTITION BY chatbot_id, visitor_key ORDER BY created_at DESC, id DESC) AS rank
                FROM conversations WHERE status <> 'closed') older
       WHERE c.id = older.id AND older.rank > 1`);
    await db.query(`CREATE UNIQUE INDEX CONCURRENTLY ${INDEX} ON conversations (chatbot_id, visitor_key) WHERE status <> 'closed'`);
  },
  async down({ context: db }) {
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`);
  },
};
