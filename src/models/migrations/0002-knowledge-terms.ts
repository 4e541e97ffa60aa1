import type { Migration } from './types';

/**
 * How many passages of a chatbot hold each search term, kept by triggers on knowledge_chunks (so
 * cascaded deletes count too). Retrieval matches on a question's rarer terms first, which keeps the
 * set of passages it must rank small however large the knowledge base grows. Passages are never
 * updated in place (re-indexing deletes and inserts), so insert and delete are the only events.
 * Rows are locked in lexeme order on both paths, so concurrent indexing of one chatbot waits, never deadlocks.
 */
export const knowledgeTerms: Migration = {
  name: '0002-knowledge-terms',
  async up({ context: db }) {
    await db.transaction(async (transaction) => {
      await db.query(
        `
CREATE TABLE knowledge_terms (
  chatbot_id integer NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  lexeme text NOT NULL,
  chunks integer NOT NULL CHECK (chunks >= 0),
  PRIMARY KEY (chatbot_id, lexeme)
);

CREATE FUNCTION knowledge_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO knowledge_terms (chatbot_id, lexeme, chunks)
  SELECT chatbot_id, lexeme, count(*) FROM added, unnest(tsvector_to_array(search)) AS lexeme
  GROUP BY chatbot_id, lexeme ORDER BY chatbot_id, lexeme
  ON CONFLICT (chatbot_id, lexeme) DO UPDATE SET chunks = knowledge_terms.chunks + EXCLUDED.chunks;
  RETURN NULL;
END $$;

CREATE FUNCTION knowledge_terms_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE gone record;
BEGIN
  FOR gone IN
    SELECT chatbot_id, lexeme, count(*) AS chunks FROM removed, unnest(tsvector_to_array(search)) AS lexeme
    GROUP BY chatbot_id, lexeme ORDER BY chatbot_id, lexeme
  LOOP
    UPDATE knowledge_terms SET chunks = chunks - gone.chunks WHERE chatbot_id = gone.chatbot_id AND lexeme = gone.lexeme;
  END LOOP;
  DELETE FROM knowledge_terms WHERE chunks = 0 AND chatbot_id IN (SELECT DISTINCT chatbot_id FROM removed);
  RETURN NULL;
END $$;

CREATE TRIGGER knowledge_chunks_terms_added AFTER INSERT ON knowledge_chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_added();
CREATE TRIGGER knowledge_chunks_terms_removed AFTER DELETE ON knowledge_chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_removed();

INSERT INTO knowledge_terms (chatbot_id, lexeme, chunks)
SELECT chatbot_id, lexeme, count(*) FROM knowledge_chunks, unnest(tsvector_to_array(search)) AS lexeme GROUP BY chatbot_id, lexeme;
`,
        { transaction },
      );
    });
  },
  async down({ context: db }) {
    await db.query(`
      DROP TRIGGER IF EXISTS knowledge_chunks_terms_added ON knowledge_chunks;
      DROP TRIGGER IF EXISTS knowledge_chunks_terms_removed ON knowledge_chunks;
      DROP FUNCTION IF EXISTS knowledge_terms_added(), knowledge_terms_removed();
      DROP TABLE IF EXISTS knowledge_terms;
    `);
  },
};
