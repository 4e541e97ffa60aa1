import type { AppContext } from '../../context';
import { unprocessable } from '../../errors';
import type { Company } from '../../models';
import { settingsOf } from '../chatbots/flags';
import { callModel, endpointFor } from './callModel';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { customerProfile } from './customerProfile';
import { parseSummaryAnswer, type SummaryAnswer } from './parseSummaryAnswer';
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
 * Summarises the transcript (and, with `copilot_use_profile`, the customer context) with the
 * chatbot's model, which names the visitor's intent in the same answer. 422 when the chatbot's
 * copilot is off, there is nothing to summarise, no provider key to do it with, or the model
 * answers nothing. Only reads: the caller stores the summary through
 * the conversation's actor.
 */
export async function summariseConversation(deps: AppContext, input: SummaryInput): Promise<SummaryAnswer> {
  const { company, userId, conversation } = input;
  if (!settingsOf(conversation.chatbot).copilot) throw unprocessable('AI assist (copilot) is switched off for this chatbot.');
  const turns = await recentTurns(conversation, WINDOW);
  if (!turns.length) throw unprocessable('There are no messages to summarise yet.');
  const endpoint = await endpointFor(deps, conversation.chatbot);
  if (!endpoint) throw unprocessable('No AI provider key is configured for this workspace, so a summary cannot be generated.');
  const customer = await customerProfile(deps, conversation);
  const completion = await callModel(deps, endpoint, {
    company,
    chatbot: conversation.chatbot,
    conversationId: conversation.id,
    userId,
    kind: 'summary',
    request: { system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: summaryRequest(asTranscript(turns), customer) }], maxTokens: MAX_TOKENS, temperature: 0.2 },
  });
  const answer = parseSummaryAnswer(completion.text);
  if (!answer.summary) throw unprocessable('The AI returned an empty summary; try again.');
  return answer;
}
