import type { EndpointDeps } from '../../ai/endpoint';
import { unprocessable } from '../../errors';
import type { Company } from '../../models';
import { callModel, endpointFor } from './callModel';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { SUMMARY_SYSTEM, summaryRequest } from './prompts';
import { asTranscript, recentTurns } from './transcript';

export interface SummaryInput {
  company: Pick<Company, 'id' | 'plan'>;
  userId: number;
  conversation: ConversationWithChatbot;
}

const WINDOW = { turns: 80, chars: 16_000 };
const MAX_TOKENS = 400;

/**
 * Summarises the transcript with the chatbot's model. 422 when there is nothing to summarise, no
 * provider key to do it with, or the model answers nothing. Only reads: the caller stores the summary
 * through the conversation's actor.
 */
export async function summariseConversation(deps: EndpointDeps, input: SummaryInput): Promise<string> {
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
  return summary;
}
