import { plainRows } from '../../db/plainRows';
import { KnowledgeChunk, type KnowledgeSourceType } from '../../models';
import { anyOf, termsOf, type Term } from './vocabulary';

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

/** Most passages ranked per question: bounds the cost of a question on a huge knowledge base. */
const CANDIDATES = 3_000;
/** What a passage word found only by its spelling counts for, against a word of the question. */
const ALIKE_WEIGHT = 0.5;

/**
 * One text whatever the question, so it is prepared once per connection (plainRows): the ranking
 * happens in `knowledge_ranked` (migration 0020), which returns only the best ids; this joins them
 * to what a reply needs.
 */
const BEST_PASSAGES_SQL = `SELECT c.id AS "chunkId", c.source_id AS "sourceId", s.type AS "sourceType", s.title AS "sourceTitle", c.title, c.url, c.content, best.rank
  FROM knowledge_ranked($1, $2::tsquery, $3::tsquery, $4::tsquery, $5, $6, $7) best
  JOIN knowledge_chunks c ON c.id = best.id
  JOIN knowledge_sources s ON s.id = c.source_id
 ORDER BY best.rank DESC, c.id`;

/**
 * The chatbot's best passages for a question: Postgres full-text search over the passages' weighted
 * tsvector (heading path A, text B), ranked by ts_rank over every term of the question (any may
 * match) with length normalisation, so short focused passages are not buried under long ones. Words
 * of the passages spelled like a word of the question (vocabulary.ts) count too, for less.
 *
 * Ranking reads every candidate's tsvector, so candidates are found through the GIN index with the
 * question's rarer terms only, adding terms from the rarest while their passages number under
 * CANDIDATES. Common words still count in the rank; they just do not pull in half the knowledge base.
 * The candidates are found and ranked in `knowledge_ranked` (migration 0020), which never scans the
 * table sequentially (a scan that stops after CANDIDATES matches looks cheap to the planner but tests
 * every passage it reads against the question) and returns only the best `limit`.
 */
export async function retrievePassages(chatbotId: number, question: string, limit = 5): Promise<Passage[]> {
  const terms = await termsOf(chatbotId, question);
  if (!terms.length) return [];
  const exact = terms.filter((term) => term.weight === 1);
  const alike = terms.filter((term) => term.weight < 1);
  const rows = await plainRows<Omit<Passage, 'chunkId' | 'rank'> & { chunkId: string | number; rank: string | number }>(
    KnowledgeChunk.sequelize!,
    BEST_PASSAGES_SQL,
    [chatbotId, anyOf(rarest(terms)), exact.length ? anyOf(exact) : null, alike.length ? anyOf(alike) : null, ALIKE_WEIGHT, CANDIDATES, limit],
    { prepared: true },
  );
  return rows.map((row) => ({ ...row, chunkId: Number(row.chunkId), rank: Number(row.rank) }));
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
