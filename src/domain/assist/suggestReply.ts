import type { AppContext } from '../../context';
import type { Company } from '../../models';
import { settingsOf } from '../chatbots/flags';
import { retrieveByMeaning } from '../knowledge/meaning';
import { callModel, endpointFor } from './callModel';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { customerProfile } from './customerProfile';
import { suggestSystem } from './prompts';
import { asChatMessages, awaitsAnswer, recentTurns, unanswered, type Turn } from './transcript';

export interface SuggestInput {
  company: Pick<Company, 'id' | 'plan'>;
  userId: number;
  conversation: ConversationWithChatbot;
  draft?: string | null;
}

/**
 * Why the assist did nothing (null when it did its work): the inbox says so and what to do about it.
 * A spent allowance is not among them: that stays a 429 (`limit_reached`).
 */
export type AssistReason = 'no_provider_key' | 'copilot_off' | 'nothing_to_answer' | 'no_change';

export interface Suggested {
  suggestion: string | null;
  reason: AssistReason | null;
}

const WINDOW = { turns: 20, chars: 8_000 };
const PASSAGES = 5;
const MAX_TOKENS = 600;

const nothing = (reason: AssistReason): Suggested => ({ suggestion: null, reason });

/**
 * A reply an agent could send, grounded in the transcript, the chatbot's knowledge and (with
 * `copilot_use_profile`) the customer context. No suggestion, and no call is made, when the chatbot's
 * copilot is off, the visitor has nothing waiting for an answer or no provider key is configured; the
 * reason says which (a model answering nothing is `nothing_to_answer` too). Only reads: the caller
 * keeps the result (an ai_suggestions row) through the conversation's actor.
 */
export async function suggestReply(deps: AppContext, input: SuggestInput): Promise<Suggested> {
  if (!settingsOf(input.conversation.chatbot).copilot) return nothing('copilot_off');
  const turns = await recentTurns(input.conversation, WINDOW);
  return awaitsAnswer(turns) ? draftReply(deps, input, turns) : nothing('nothing_to_answer');
}

async function draftReply(deps: AppContext, input: SuggestInput, turns: Turn[]): Promise<Suggested> {
  const { company, userId, conversation } = input;
  const { chatbot } = conversation;
  const endpoint = await endpointFor(deps, chatbot);
  if (!endpoint) return nothing('no_provider_key');
  const draft = input.draft?.trim() || null;
  const question = [...unanswered(turns).map((turn) => turn.content), draft ?? ''].join('\n');
  const [passages, customer] = await Promise.all([retrieveByMeaning(deps, endpoint, chatbot.id, question, PASSAGES), customerProfile(deps, conversation)]);
  const completion = await callModel(deps, endpoint, {
    company,
    chatbot,
    conversationId: conversation.id,
    userId,
    kind: 'suggest',
    request: { system: suggestSystem({ chatbot, passages, draft, customer }), messages: asChatMessages(turns), maxTokens: MAX_TOKENS, temperature: 0.4 },
  });
  const suggestion = completion.text.trim();
  return suggestion ? { suggestion, reason: null } : nothing('nothing_to_answer');
}
