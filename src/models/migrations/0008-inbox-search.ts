import { trigramsAvailable } from './trigrams';
import type { Migration } from './types';

/**
 * The inbox's `q` (visitor name, email, message text; substring, any case) answered by trigram
 * indexes instead of reading every message of the workspace: GIN over `pg_trgm`'s trigrams serves
 * `ILIKE '%text%'` for any text of three characters or more (docs/performance.md, `inbox`).
 *
 * `pg_trgm` ships with PostgreSQL (contrib, the embedded server included) and is a trusted
 * extension, so the database's owner may create it without superuser rights. Where even that is
 * refused, the search still works, by reading every row: the indexes are left out, with a notice,
 * rather than failing the release over them.
 *
 * CONCURRENTLY, as 0003: the builds do not block the writes of every visitor message; a build that
 * failed halfway is dropped on the rerun.
 */
const INDEXES: Array<[name: string, definition: string]> = [
  ['conversations_visitor_trgm', 'ON conversations USING gin (visitor_name gin_trgm_ops, visitor_email gin_trgm_ops)'],
  ['messages_content_trgm', 'ON messages USING gin (content gin_trgm_ops)'],
];

export const inboxSearch: Migration = {
  name: '0008-inbox-search',
  async up({ context: db }) {
    if (!(await trigramsAvailable(db, { code: 'PARLEY_INBOX_SEARCH_UNINDEXED', without: 'inbox search works without its indexes, reading every row' }))) return;
    for (const [name, definition] of INDEXES) {
      await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await db.query(`CREATE INDEX CONCURRENTLY ${name} ${definition}`);
    }
  },
  async down({ context: db }) {
    for (const [name] of INDEXES) await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  },
};
