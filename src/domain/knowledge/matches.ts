import { QueryTypes } from 'sequelize';
import { KnowledgeChunk } from '../../models';
import type { Passage } from './retrieve';
import { anyOf, termsOf } from './vocabulary';

// Marks around each matched word in ts_headline's output; characters no passage is expected to hold.
const OPEN = '⟦';
const CLOSE = '⟧';
const MARKED = new RegExp(`${OPEN}([^${CLOSE}]*)${CLOSE}`, 'g');

/**
 * The words of each passage's text that match the question, as written there ("Password",
 * "presidential", lower-cased), found by PostgreSQL itself: parsed in the passage's language, with the same terms
 * retrieval ranked by, words spelled alike included. The extractive responder picks its sentences by
 * them, so it agrees with retrieval on what matched instead of guessing at English suffixes.
 */
export async function matchedWords(chatbotId: number, question: string, passages: readonly Passage[]): Promise<Map<number, Set<string>>> {
  const matched = new Map<number, Set<string>>();
  if (!passages.length) return matched;
  const terms = await termsOf(chatbotId, question);
  if (!terms.length) return matched;
  const rows = await KnowledgeChunk.sequelize!.query<{ chunkId: string | number; marked: string }>(
    `SELECT id AS "chunkId",
            ts_headline(CAST(search_config AS regconfig), content, CAST(:query AS tsquery), 'HighlightAll=true, StartSel="${OPEN}", StopSel="${CLOSE}"') AS marked
       FROM knowledge_chunks WHERE id IN (:ids)`,
    { replacements: { query: anyOf(terms), ids: passages.map((p) => p.chunkId) }, type: QueryTypes.SELECT },
  );
  for (const row of rows) {
    // Split as the extractive responder splits sentences: a marked "Hand-knitted" is two words there.
    const words = [...row.marked.matchAll(MARKED)].flatMap(([, word]) => word!.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    matched.set(Number(row.chunkId), new Set(words));
  }
  return matched;
}
