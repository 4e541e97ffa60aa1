import type { EndpointDeps } from '../../ai/endpoint';
import type { Company } from '../../models';
import { callModel, endpointFor } from './callModel';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { settingsOf } from '../chatbots/flags';
import { enhanceSystem, type EnhanceMode } from './prompts';
import type { AssistReason } from './suggestReply';

export interface EnhanceInput {
  company: Pick<Company, 'id' | 'plan'>;
  userId: number;
  conversation: ConversationWithChatbot;
  body: string;
  mode: EnhanceMode;
}

export interface Enhanced {
  text: string;
  enhanced: boolean;
  /** Why the draft came back as it was; null when it was enhanced. */
  reason: AssistReason | null;
}

// Room for `expand` to roughly double a 4000-character draft.
const MAX_TOKENS = 2_000;

/**
 * The agent's draft rewritten in the chosen mode by the chatbot's model. The draft comes back as it
 * was, with `enhanced` false and the reason, when the chatbot's copilot is off (`copilot_off`) or there
 * is no provider key (`no_provider_key`; no call is made either way), or the model answers nothing or
 * the same text (`no_change`).
 */
export async function enhanceDraft(deps: EndpointDeps, input: EnhanceInput): Promise<Enhanced> {
  const { company, userId, conversation, body, mode } = input;
  const unchanged = (reason: AssistReason): Enhanced => ({ text: body, enhanced: false, reason });
  if (!settingsOf(conversation.chatbot).copilot) return unchanged('copilot_off');
  const endpoint = await endpointFor(deps, conversation.chatbot);
  if (!endpoint) return unchanged('no_provider_key');
  const completion = await callModel(deps, endpoint, {
    company,
    chatbot: conversation.chatbot,
    conversationId: conversation.id,
    userId,
    kind: 'enhance',
    request: { system: enhanceSystem(mode), messages: [{ role: 'user', content: body }], maxTokens: MAX_TOKENS, temperature: 0.3 },
  });
  const text = completion.text.trim();
  return !text || text === body.trim() ? unchanged('no_change') : { text, enhanced: true, reason: null };
}
