import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/context';
import { termsOf } from '../../src/domain/knowledge/vocabulary';

/**
 * Why a question's expected passage was not in the top 3, told from the words alone (so the analysis
 * in docs/performance.md can be rerun on any change and any question set):
 *
 * - `noWordShared`: the passages that answer hold none of the question's words (stemmed, in the
 *   knowledge's language). Only meaning can find them: "lawyer" for "counsel".
 * - `onlyCommonWords`: they share only words found in at least COMMON_SHARE of the chatbot's passages
 *   ("state", "president" in the Constitution), which cannot single them out: vocabulary mismatch too.
 * - `ranking`: they share a rarer word and were outranked; a better lexical ranking could fix these.
 *
 * Questions of the first two kinds bound what any ranking by words can reach: the lexical ceiling.
 */
export const COMMON_SHARE = 0.1;

export type MissKind = 'noWordShared' | 'onlyCommonWords' | 'ranking';

export async function missKind(ctx: AppContext, chatbotId: number, question: string, answering: readonly number[]): Promise<MissKind> {
  const terms = (await termsOf(chatbotId, question)).filter((term) => term.weight === 1);
  if (!terms.length) return 'noWordShared';
  const [total] = await ctx.db.sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM knowledge_chunks WHERE chatbot_id = :chatbotId`, {
    replacements: { chatbotId },
    type: QueryTypes.SELECT,
  });
  const held = await ctx.db.sequelize.query<{ lexeme: string }>(
    `SELECT DISTINCT lexeme FROM knowledge_chunks c, unnest(tsvector_to_array(c.search)) AS lexeme WHERE c.id IN (:ids) AND lexeme IN (:lexemes)`,
    { replacements: { ids: answering, lexemes: terms.map((term) => term.lexeme) }, type: QueryTypes.SELECT },
  );
  if (!held.length) return 'noWordShared';
  const common = COMMON_SHARE * Number(total?.count ?? 0);
  const shared = terms.filter((term) => held.some((row) => row.lexeme === term.lexeme));
  return shared.every((term) => term.chunks >= common) ? 'onlyCommonWords' : 'ranking';
}

export interface MissCounts {
  noWordShared: number;
  onlyCommonWords: number;
  ranking: number;
}

export function countKinds(kinds: readonly MissKind[]): MissCounts {
  const counts: MissCounts = { noWordShared: 0, onlyCommonWords: 0, ranking: 0 };
  for (const kind of kinds) counts[kind]++;
  return counts;
}
