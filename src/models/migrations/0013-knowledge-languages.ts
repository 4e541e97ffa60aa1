import { trigramsAvailable } from './trigrams';
import type { Migration } from './types';

/**
 * Retrieval in the knowledge's own language, and fuzzy matching of question words
 * (docs/performance.md, `retrieval`):
 *
 * - `search_config` names the PostgreSQL text search configuration (`english`, `french`, `simple`,
 *   ...) a source's passages were parsed with, on the source (so a question is parsed with every
 *   configuration its chatbot's sources use, from a small table) and on each passage (so the
 *   generated `search` column follows it). Existing rows keep `english`, the only one used before.
 *   It is text, not `regconfig`: pg_upgrade refuses user tables holding reg* types.
 * - `knowledge_search_vector` builds the weighted tsvector (heading path A, text B). A generated
 *   column may only call immutable functions and a text-to-regconfig cast is merely stable (it reads
 *   the catalog), so the wrapper declares itself immutable: true as long as a configuration is not
 *   redefined under the same name, which Parley never does.
 * - `search` is rebuilt over it: its expression cannot be altered in place before PostgreSQL 17,
 *   so the column (and its GIN index) is dropped and added again. That rewrites knowledge_chunks
 *   under an exclusive lock, once; values are unchanged for existing rows (all `english`), so the
 *   term counts of 0002 stay true (DDL fires no triggers).
 * - `knowledge_terms_lexeme_trgm`: trigram index over the chatbots' vocabularies, so a question word
 *   finds the passages' words that are spelled like it (typos, and derived forms the stemmer keeps
 *   apart: presidential / president), through `knowledge_alike`. The function carries its own
 *   similarity threshold (0.4; pg_trgm's default of 0.3 makes the index return many more words, all
 *   to be rechecked and thrown away) without touching the session's. Without pg_trgm both are left
 *   out, and retrieval matches exact words only (src/domain/knowledge/vocabulary.ts asks whether the
 *   function is there).
 */
const TRIGRAM_INDEX = 'knowledge_terms_lexeme_trgm';
export const MIN_SIMILARITY = 0.4;

export const knowledgeLanguages: Migration = {
  name: '0013-knowledge-languages',
  async up({ context: db }) {
    await db.transaction(async (transaction) => {
      await db.query(
        `
CREATE OR REPLACE FUNCTION knowledge_search_vector(config text, title text, content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector(config::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector(config::regconfig, content), 'B') $$;

ALTER TABLE knowledge_sources ADD COLUMN search_config varchar(32) NOT NULL DEFAULT 'english';
ALTER TABLE knowledge_chunks ADD COLUMN search_config varchar(32) NOT NULL DEFAULT 'english';
ALTER TABLE knowledge_chunks DROP COLUMN search;
ALTER TABLE knowledge_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (knowledge_search_vector(search_config, title, content)) STORED;
CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING gin (search);
`,
        { transaction },
      );
    });
    if (!(await trigramsAvailable(db, { code: 'PARLEY_KNOWLEDGE_FUZZY_OFF', without: 'knowledge retrieval matches exact words only' }))) return;
    // CONCURRENTLY, as 0003: indexing keeps writing the term counts while it builds.
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${TRIGRAM_INDEX}`);
    await db.query(`CREATE INDEX CONCURRENTLY ${TRIGRAM_INDEX} ON knowledge_terms USING gin (lexeme gin_trgm_ops)`);
    await db.query(`
CREATE OR REPLACE FUNCTION knowledge_alike(chatbot integer, words text[], per_word integer)
  RETURNS TABLE (lexeme text, chunks integer, weight real)
  LANGUAGE sql STABLE
  SET pg_trgm.similarity_threshold = ${MIN_SIMILARITY}
  AS $$
    SELECT f.lexeme, f.chunks, f.weight
      FROM unnest(words) AS w(word) CROSS JOIN LATERAL (
            SELECT k.lexeme, k.chunks, similarity(k.lexeme, w.word) AS weight
              FROM knowledge_terms k
             WHERE k.lexeme % w.word AND k.chatbot_id = chatbot
             ORDER BY weight DESC, k.lexeme
             LIMIT per_word) f
  $$`);
  },
  async down({ context: db }) {
    await db.query('DROP FUNCTION IF EXISTS knowledge_alike(integer, text[], integer)');
    await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${TRIGRAM_INDEX}`);
    await db.transaction(async (transaction) => {
      await db.query(
        `
ALTER TABLE knowledge_chunks DROP COLUMN search;
ALTER TABLE knowledge_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', content), 'B')
) STORED;
CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING gin (search);
ALTER TABLE knowledge_chunks DROP COLUMN search_config;
ALTER TABLE knowledge_sources DROP COLUMN search_config;
DROP FUNCTION knowledge_search_vector(text, text, text);
`,
        { transaction },
      );
    });
  },
};
