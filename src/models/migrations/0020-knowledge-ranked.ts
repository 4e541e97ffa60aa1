import type { Migration } from './types';

/**
 * Retrieval's ranking step made cheaper per candidate (docs/performance.md, "Retrieval latency,
 * fourth round"); what it returns is unchanged.
 *
 * - `search` is kept in the passage's row (storage MAIN). With the default (EXTENDED), a row over
 *   ~2 KB had its tsvector, which does not compress, moved out to the TOAST table: about half the
 *   passages of a 100,000-passage knowledge base, so ranking 3,000 candidates meant some 1,500 TOAST
 *   index look-ups and reads besides the rows. MAIN moves the other long values out first (the
 *   content, compressed; an embedding), and the tsvector only when the row could not fit a page
 *   otherwise. `VACUUM FULL` rewrites the existing rows so they follow it (the new storage applies
 *   only to values written after it): the table is locked while it is rewritten, seconds per
 *   100,000 passages, as the rebuild of 0013 did.
 * - `knowledge_ranked` finds the candidates as `knowledge_candidates` (0019) does, through the GIN
 *   index only, and ranks them itself, returning the best few ids and ranks. A set-returning SQL
 *   function that is not inlined (its `SET` prevents that) hands its rows over in a tuplestore:
 *   `knowledge_candidates` copied 3,000 tsvectors (~3.6 MB, near the default work_mem of 4 MB, so
 *   often spilled to a temporary file) only for the caller to rank them.
 *   The rank is the one retrieve.ts computed: ts_rank with log-length normalisation over the
 *   question's own words, plus `alike_weight` times that over the words spelled like them; either
 *   query may be NULL (no such words). Ties go to the lower id. `ROWS 10` tells the planner it
 *   returns a handful (`best`: 5 for a reply, 50 for re-ranking by meaning), not the default 1,000,
 *   so a caller's join to the passages stays a primary-key look-up in a plan made once for all
 *   values (a prepared statement).
 */
export const knowledgeRanked: Migration = {
  name: '0020-knowledge-ranked',
  async up({ context: db }) {
    await db.query(`
CREATE OR REPLACE FUNCTION knowledge_ranked(chatbot integer, match tsquery, exact tsquery, alike tsquery, alike_weight double precision, most integer, best integer)
  RETURNS TABLE (id bigint, rank double precision)
  LANGUAGE sql STABLE
  ROWS 10
  SET enable_seqscan = off
  AS $$
    SELECT c.id,
           CASE WHEN alike IS NULL THEN ts_rank(c.search, exact, 1)
                WHEN exact IS NULL THEN alike_weight * ts_rank(c.search, alike, 1)
                ELSE ts_rank(c.search, exact, 1) + alike_weight * ts_rank(c.search, alike, 1) END AS rank
      FROM (SELECT k.id, k.search FROM knowledge_chunks k WHERE k.chatbot_id = chatbot AND k.search @@ match LIMIT most) c
     ORDER BY rank DESC, c.id
     LIMIT best
  $$`);
    await db.query('ALTER TABLE knowledge_chunks ALTER COLUMN search SET STORAGE MAIN');
    await db.query('VACUUM FULL knowledge_chunks');
  },
  async down({ context: db }) {
    await db.query('ALTER TABLE knowledge_chunks ALTER COLUMN search SET STORAGE EXTENDED');
    await db.query('DROP FUNCTION IF EXISTS knowledge_ranked(integer, tsquery, tsquery, tsquery, double precision, integer, integer)');
  },
};
