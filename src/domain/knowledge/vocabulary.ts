import { QueryTypes } from 'sequelize';
import { plainRows } from '../../db/plainRows';
import { KnowledgeChunk } from '../../models';

/** A search term of a question: a word of the chatbot's passages, with what it counts for. */
export interface Term {
  lexeme: string;
  /** Passages of the chatbot holding it (knowledge_terms). */
  chunks: number;
  /** 1 for a word of the question itself; the trigram similarity for a word only spelled like one. */
  weight: number;
}

const MAX_WORDS = 24;
/** Passage words taken per question word by spelling, best first. */
const ALIKE_PER_WORD = 3;
/** Shorter words share too few trigrams for their similarity to mean anything (war / ward). */
const MIN_ALIKE_LENGTH = 4;

let fuzzy: Promise<boolean> | undefined;

/**
 * Whether migration 0013 could create `knowledge_alike` (it needs pg_trgm, which may be refused;
 * the least similarity, 0.4, is set there); read once per process.
 */
function fuzzyAvailable(): Promise<boolean> {
  fuzzy ??= KnowledgeChunk.sequelize!
    .query<{ present: boolean }>(`SELECT to_regprocedure('knowledge_alike(integer, text[], integer)') IS NOT NULL AS present`, { type: QueryTypes.SELECT })
    .then(([row]) => row?.present === true)
    .catch((error: unknown) => {
      fuzzy = undefined;
      throw error;
    });
  return fuzzy;
}

/** The question's words (stemmed by each configuration its chatbot's sources use) the passages hold. */
const KNOWN_CTE = `WITH words AS (
       SELECT DISTINCT w.lexeme
         FROM (SELECT DISTINCT search_config FROM knowledge_sources WHERE chatbot_id = $1 AND parent_id IS NULL) c,
              unnest(tsvector_to_array(to_tsvector(CAST(c.search_config AS regconfig), $2::text))) AS w(lexeme)
        LIMIT ${MAX_WORDS * 2}
     ), known AS (
       SELECT k.lexeme, k.chunks FROM words JOIN knowledge_terms k ON k.chatbot_id = $1 AND k.lexeme = words.lexeme
     )`;
const TERMS_SQL = `${KNOWN_CTE}
     SELECT lexeme, chunks, 1 AS weight FROM known`;
/**
 * Only words the passages do not hold are looked up by spelling: those are the typos and the forms
 * the stemmer kept apart, and a known word would mostly bring near-misses of itself at some cost.
 * When there is none, the EXISTS (a one-time filter) skips the call to knowledge_alike altogether.
 */
const TERMS_AND_ALIKE_SQL = `${KNOWN_CTE}, unknown AS (
       SELECT lexeme FROM words WHERE length(lexeme) >= ${MIN_ALIKE_LENGTH} AND lexeme NOT IN (SELECT lexeme FROM known)
     )
     SELECT lexeme, chunks, 1 AS weight FROM known
     UNION ALL
     SELECT lexeme, chunks, weight FROM knowledge_alike($1, ARRAY(SELECT lexeme FROM unknown), ${ALIKE_PER_WORD})
      WHERE EXISTS (SELECT 1 FROM unknown)`;

/**
 * The question's search terms that occur in the chatbot's passages, rarest first. Postgres parses
 * and stems the question exactly as it did the passages, with each configuration (language) the
 * chatbot's sources were parsed with; nothing typed reaches tsquery syntax. Where pg_trgm is there,
 * a question word the passages do not hold brings the passages' words spelled most like it (a typo,
 * a derived form the stemmer does not reduce), weighted by how alike they are. One round trip, a
 * statement prepared once per connection.
 */
export async function termsOf(chatbotId: number, question: string): Promise<Term[]> {
  const rows = await plainRows<Term>(KnowledgeChunk.sequelize!, (await fuzzyAvailable()) ? TERMS_AND_ALIKE_SQL : TERMS_SQL, [chatbotId, question], { prepared: true });
  return strongest(rows)
    .sort((a, b) => a.chunks - b.chunks || (a.lexeme < b.lexeme ? -1 : 1))
    .slice(0, MAX_WORDS);
}

/** One term per word: a word of the question outweighs the same word found by its spelling. */
function strongest(rows: Term[]): Term[] {
  const byLexeme = new Map<string, Term>();
  for (const row of rows) {
    const term = { lexeme: row.lexeme, chunks: Number(row.chunks), weight: Number(row.weight) };
    const seen = byLexeme.get(term.lexeme);
    if (!seen || seen.weight < term.weight) byLexeme.set(term.lexeme, term);
  }
  return [...byLexeme.values()];
}

/** A tsquery matching any of the lexemes, each quoted as a literal (no re-stemming, no operators). */
export function anyOf(terms: Term[]): string {
  return terms.map(({ lexeme }) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' | ');
}
