import type { Transaction } from 'sequelize';
import { notFound } from '../../errors';
import { AiSuggestion, Conversation, type SuggestionOutcome } from '../../models';

export const SUGGESTION_OUTCOMES = ['generated', 'inserted', 'edited', 'dismissed'] as const satisfies readonly SuggestionOutcome[];

/** A suggestion of this workspace by its id, with its conversation's public id; non-numeric, missing and foreign ids are the same 404. */
export async function findSuggestion(companyId: number, id: string): Promise<{ id: number; conversationId: string }> {
  const suggestion = /^\d{1,15}$/.test(id) ? await AiSuggestion.findOne({ where: { companyId, id: Number(id) }, attributes: ['id', 'conversationId'] }) : null;
  const conversation = suggestion && (await Conversation.findOne({ where: { id: suggestion.conversationId, companyId }, attributes: ['publicId'] }));
  if (!suggestion || !conversation) throw notFound('Suggestion');
  return { id: Number(suggestion.id), conversationId: conversation.publicId };
}

/** Keeps what the AI drafted for an agent (outcome `generated`), so outcomes can be reported against its id. */
export async function recordSuggestion(
  conversation: Pick<Conversation, 'id' | 'companyId'>,
  userId: number,
  suggestion: string | null,
  transaction: Transaction,
): Promise<number> {
  const row = await AiSuggestion.create({ companyId: conversation.companyId, conversationId: conversation.id, userId, suggestion, outcome: 'generated' }, { transaction });
  return Number(row.id);
}

/** Records what the agent did with a suggestion of this conversation; the latest report wins. */
export async function recordOutcome(conversation: Pick<Conversation, 'id'>, suggestionId: number, outcome: SuggestionOutcome, transaction: Transaction): Promise<void> {
  const [updated] = await AiSuggestion.update({ outcome }, { where: { id: suggestionId, conversationId: conversation.id }, transaction });
  if (!updated) throw notFound('Suggestion');
}
