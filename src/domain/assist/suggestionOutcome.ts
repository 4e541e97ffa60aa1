import { notFound } from '../../errors';
import { AiSuggestion, type SuggestionOutcome } from '../../models';

export const SUGGESTION_OUTCOMES = ['generated', 'inserted', 'edited', 'dismissed'] as const satisfies readonly SuggestionOutcome[];

/** A suggestion of this workspace by its id; non-numeric, missing and foreign ids are the same 404. */
export async function findSuggestion(companyId: number, id: string): Promise<AiSuggestion> {
  const suggestion = /^\d{1,15}$/.test(id) ? await AiSuggestion.findOne({ where: { companyId, id: Number(id) } }) : null;
  if (!suggestion) throw notFound('Suggestion');
  return suggestion;
}

/** Records what the agent did with a suggestion; the latest report wins. */
export function recordOutcome(suggestion: AiSuggestion, outcome: SuggestionOutcome): Promise<AiSuggestion> {
  return suggestion.update({ outcome });
}
