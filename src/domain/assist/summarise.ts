import type { EndpointDeps } from '../../ai/endpoint';
import { unprocessable } from '../../errors';
import { Conversation, type Company } from '../../models';
import { callModel, endpointFor } from './callModel';
import type { ConversationWithChatbot } from './findConversation';
import { SUMMARY_SYSTEM, summaryRequest } from './prompts';
import { suggestTagsQuietly } from './suggestTags';
import { asTranscript, recentTurns } from './transcript';

export interface SummaryInput {
  company: Pick<Company, 'id' | 'plan'>;
  userId: number;
  conversation: ConversationWithChatbot;
}

const WINDOW = { turns: 80, chars: 16_000 };
const MAX_TOKENS = 400;

/**
 * Summarises the transcript with the chatbot's model and stores it on the conversation, then
 * refreshes the AI tag suggestions in the same request (their failures are logged, never the
 * summary's). 422 when there is nothing to summarise or no provider key to do it with.
 */
export async function summariseConversation(deps: EndpointDeps, input: SummaryInput): Promise<{ summary: string; summaryAt: Date }> {
  const { company, userId, conversation } = input;
  const turns = await recentTurns(conversation, WINDOW);
  if (!turns.length) throw unprocessable('There are no messages to summarise yet.');
  const endpoint = await endpointFor(deps, conversation.chatbot);
  if (!endpoint) throw unprocessable('No AI provider key is configured for this workspace, so a summary cannot be generated.');
  const completion = await callModel(deps, endpoint, {
    company,
    chatbot: conversation.chatbot,
    conversationId: conversation.id,
    userId,
    kind: 'summary',
    request: { system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: summaryRequest(asTranscript(turns)) }], maxTokens: MAX_TOKENS, temperature: 0.2 },
  });
  const summary = completion.text.trim();
  if (!summary) throw unprocessable('The AI returned an empty summary; try again.');
  const summaryAt = new Date();
  // A direct write is safe: the conversation actor never writes these two columns.
  await Conversation.update({ summary, summaryAt }, { where: { id: conversation.id, companyId: company.id } });
  await suggestTagsQuietly(deps, conversation.id, { userId });
  return { summary, summaryAt };
}
