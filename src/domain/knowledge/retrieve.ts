import { QueryTypes } from 'sequelize';
import { KnowledgeChunk, type KnowledgeSourceType } from '../../models';

/** A passage retrieved for a question, with what a prompt and the `done` event's sources need. */
export interface Passage {
  chunkId: number;
  sourceId: number;
  sourceType: KnowledgeSourceType;
  /** The document's (or crawled page's) title; `title` is the passage's own heading path. */
  sourceTitle: string;
  title: string;
  url: string | null;
  content: string;
  rank: number;
}

const MAX_TERMS = 24;

/**
 * The question's words as a tsquery that matches any of them. Words are letters and digits only,
 * so nothing the visitor types can reach tsquery syntax; Postgres stems them and drops stop words.
 */
export function searchQuery(question: string): string | null {
  const words = new Set((question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 || /\d/.test(w)));
  return words.size ? [...words].slice(0, MAX_TERMS).join(' | ') : null;
}

/**
 * The chatbot's best passages for a question: Postgres full-text search over the chunks' weighted
 * tsvector (title A, text B) through its GIN index, ranked by ts_rank with length normalisation so
 * short focused passages are not buried under long ones that mention a term in passing.
 */
export async function retrievePassages(chatbotId: number, question: string, limit = 5): Promise<Passage[]> {
  const query = searchQuery(question);
  if (!query) return [];
  const rows = await KnowledgeChunk.sequelize!.query<Omit<Passage, 'rank'> & { rank: string | number }>(
    `SELECT c.id AS "chunkId", c.source_id AS "sourceId", s.type AS "sourceType", s.title AS "sourceTitle", c.title, c.url, c.content, best.rank
       FROM (SELECT id, ts_rank(search, q, 1) AS rank
               FROM knowledge_chunks, to_tsquery('english', :query) q
              WHERE chatbot_id = :chatbotId AND search @@ q
              ORDER BY rank DESC, id
              LIMIT :limit) best
       JOIN knowledge_chunks c ON c.id = best.id
       JOIN knowledge_sources s ON s.id = c.source_id
      ORDER BY best.rank DESC, c.id`,
    { replacements: { chatbotId, query, limit }, type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ ...row, chunkId: Number(row.chunkId), rank: Number(row.rank) }));
}
