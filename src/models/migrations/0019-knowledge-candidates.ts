import type { Migration } from './types';

/**
 * `knowledge_candidates`: the passages retrieval ranks for a question (src/domain/knowledge/retrieve.ts),
 * found through the GIN index on `search`, never by a sequential scan.
 *
 * The candidates are the first N passages of a chatbot matching the question's rarer terms. With a
 * LIMIT, the planner prices a sequential scan that stops after N matches as cheap whenever the term
 * is common, but that scan evaluates `@@` on every passage it reads (each tsvector decompressed) until
 * N match: 18,775 passages read for 3,000 candidates, 94 ms, in a 100,000-passage knowledge base
 * (docs/performance.md, "Retrieval, third round"), where the bitmap index scan reads only the
 * matching passages. A function with its own `enable_seqscan = off` keeps that choice out of the
 * planner's hands for this one statement without touching the session's setting; the other plans
 * (the chatbot's index, the GIN index) stay open to it. Ranking is unchanged wherever the rarer
 * terms' passages number under the limit (all of them are candidates either way); above it, the
 * candidates are now the same ones every time, where a sequential scan of a large table may start
 * where the previous one stopped (synchronized scans), so which passages it found first varied.
 */
export const knowledgeCandidates: Migration = {
  name: '0019-knowledge-candidates',
  async up({ context: db }) {
    await db.query(`
CREATE OR REPLACE FUNCTION knowledge_candidates(chatbot integer, query tsquery, most integer)
  RETURNS TABLE (id bigint, search tsvector)
  LANGUAGE sql STABLE
  SET enable_seqscan = off
  AS $$ SELECT c.id, c.search FROM knowledge_chunks c WHERE c.chatbot_id = chatbot AND c.search @@ query LIMIT most $$`);
  },
  async down({ context: db }) {
    await db.query('DROP FUNCTION IF EXISTS knowledge_candidates(integer, tsquery, integer)');
  },
};
