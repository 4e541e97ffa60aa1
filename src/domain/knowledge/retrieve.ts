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

interface Term {
  lexeme: string;
  /** Passages of the chatbot holding it (knowledge_terms). */
  chunks: number;
}

const MAX_TERMS = 24;
/** Most passages ranked per question: bounds the cost of a question on a huge knowledge base. */
const CANDIDATES = 3_000;

/**
 * The chatbot's best passages for a question: Postgres full-text search over the passages' weighted
 * tsvector (heading path A, text B), ranked by ts_rank over every term of the question (any may
 * match) with length normalisation, so short focused passages are not buried under long ones.
 *
 * Ranking reads every candidate's tsvector, so candidates are found through the GIN index with the
 * question's rarer terms only, adding terms from the rarest while their passages number under
 * CANDIDATES. Common words still count in the rank; they just do not pull in half the knowledge base.
 */
export async function retrievePassages(chatbotId: number, question: string, limit = 5): Promise<Passage[]> {
  const terms = await termsOf(chatbotId, question);
  if (!terms.length) return [];
  const rows = await KnowledgeChunk.sequelize!.query<Omit<Passage, 'rank'> & { rank: string | number }>(
    `SELECT c.id AS "chunkId", c.source_id AS "sourceId", s.type AS "sourceType", s.title AS "sourceTitle", c.title, c.url, c.content, best.rank
       FROM (SELECT id, ts_rank(search, CAST(:score AS tsquery), 1) AS rank
               FROM (SELECT id, search FROM knowledge_chunks
                      WHERE chatbot_id = :chatbotId AND search @@ CAST(:match AS tsquery)
                      LIMIT :candidates) candidates
              ORDER BY rank DESC, id
              LIMIT :limit) best
       JOIN knowledge_chunks c ON c.id = best.id
       JOIN knowledge_sources s ON s.id = c.source_id
      ORDER BY best.rank DESC, c.id`,
    {
      replacements: { chatbotId, limit, candidates: CANDIDATES, match: anyOf(rarest(terms)), score: anyOf(terms) },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((row) => ({ ...row, chunkId: Number(row.chunkId), rank: Number(row.rank) }));
}

/**
 * The question's search terms that occur in the chatbot's passages, rarest first. Postgres parses
 * and stems the question exactly as it did the passages; nothing typed reaches tsquery syntax.
 */
async function termsOf(chatbotId: number, question: string): Promise<Term[]> {
  const rows = await KnowledgeChunk.sequelize!.query<Term>(
    `SELECT t.lexeme, k.chunks
       FROM unnest(tsvector_to_array(to_tsvector('english', :question))) AS t(lexeme)
       JOIN knowledge_terms k ON k.chatbot_id = :chatbotId AND k.lexeme = t.lexeme
      ORDER BY k.chunks, t.lexeme
      LIMIT :max`,
    { replacements: { chatbotId, question, max: MAX_TERMS }, type: QueryTypes.SELECT },
  );
  return rows;
}

/** The rarest terms whose passages together stay within CANDIDATES (always at least the rarest). */
function rarest(terms: Term[]): Term[] {
  const picked: Term[] = [];
  let total = 0;
  for (const term of terms) {
    if (picked.length && total + term.chunks > CANDIDATES) break;
    picked.push(term);
    total += term.chunks;
  }
  return picked;
}

/** A tsquery matching any of the lexemes, each quoted as a literal (no re-stemming, no operators). */
function anyOf(terms: Term[]): string {
  return terms.map(({ lexeme }) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' | ');
}
