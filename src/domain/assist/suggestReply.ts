import type { AppContext } from '../../context';
import type { Company } from '../../models';
import { settingsOf } from '../chatbots/flags';
import { retrievePassages } from '../knowledge/retrieve';
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

const WINDOW = { turns: 20, chars: 8_000 };
const PASSAGES = 5;
const MAX_TOKENS = 600;

/**
 * A reply an agent could send, grounded in the transcript, the chatbot's knowledge and (with
 * `copilot_use_profile`) the customer context. Null, and no call is made, when the chatbot's copilot is
 * off, the visitor has nothing waiting for an answer or no provider key is configured. Only reads: the
 * caller keeps the result (an ai_suggestions row) through the conversation's actor.
 */
export async function suggestReply(deps: AppContext, input: SuggestInput): Promise<string | null> {
  if (!settingsOf(input.conversation.chatbot).copilot) return null;
  const turns = await recentTurns(input.conversation, WINDOW);
  return awaitsAnswer(turns) ? draftReply(deps, input, turns) : null;
}

async function draftReply(deps: AppContext, input: SuggestInput, turns: Turn[]): Promise<string | null> {
  const { company, userId, conversation } = input;
  const { chatbot } = conversation;
  const endpoint = await endpointFor(deps, chatbot);
  if (!endpoint) return null;
  const draft = input.draft?.trim() || null;
  const question = [...unanswered(turns).map((turn) => turn.content), draft ?? ''].join('\n');
  const [passages, customer] = await Promise.all([retrievePassages(chatbot.id, question, PASSAGES), customerProfile(deps, conversation)]);
  const completion = await callModel(deps, endpoint, {
    company,
    chatbot,
    conversationId: conversation.id,
    userId,
    kind: 'suggest',
    request: { system: suggestSystem({ chatbot, passages, draft, customer }), messages: asChatMessages(turns), maxTokens: MAX_TOKENS, temperature: 0.4 },
  });
  return completion.text.trim() || null;
}
