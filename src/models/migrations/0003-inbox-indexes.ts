import type { Migration } from './types';

/**
 * The agent inbox with 100,000 conversations in a workspace (docs/performance.md, `inbox`):
 *
 * - `conversations_open_recent` serves the default list (`status <> 'closed'`, newest first): the
 *   first 60 rows straight from the index instead of sorting every open conversation. The existing
 *   (company_id, status, last_message_at) index cannot give that order across three statuses.
 * - `conversations_inbox_groups` holds every column the group counts read, so they come from an
 *   index-only scan instead of the table. Duplicate keys deduplicate, so it stays small.
 *
 * No full (company_id, last_message_at) index on purpose: the filtered lists test the group CASE,
 * which no index can answer, and with such an index the planner walks the whole workspace in order
 * for an agent with fewer than 60 rows in the group (measured: 2-3x slower than the scan it replaces).
 *
 * CONCURRENTLY, one statement each: built while the release runs, without blocking the writes of
 * every visitor message. A build that failed halfway leaves an invalid index, dropped on the rerun.
 */
const INDEXES: Array<[name: string, definition: string]> = [
  ['conversations_open_recent', `ON conversations (company_id, last_message_at DESC, id DESC) WHERE status <> 'closed'`],
  ['conversations_inbox_groups', 'ON conversations (company_id, status, handoff_state, escalated, assigned_user_id, unread_count)'],
];

export const inboxIndexes: Migration = {
  name: '0003-inbox-indexes',
  async up({ context: db }) {
    for (const [name, definition] of INDEXES) {
      await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await db.query(`CREATE INDEX CONCURRENTLY ${name} ${definition}`);
    }
  },
  async down({ context: db }) {
    for (const [name] of INDEXES) await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  },
};
