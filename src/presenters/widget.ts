import type { ConversationView } from '../actors/conversation/protocol';
import { brandOf } from '../domain/accounts/brand';
import { waitRemaining } from '../domain/conversations/transitions';
import { resolveBranding, type StoredBranding } from '../domain/chatbots/branding';
import { prechatOf } from '../domain/chatbots/prechat';
import type { Chatbot, Company, Conversation, Message } from '../models';
import { presentWidgetMessage } from './message';

/** `powered_by` is the workspace brand's line ("" when white-labelled: the widget shows none). */
export const presentWidgetConfig = (chatbot: Chatbot & { company: Company }, appUrl: string, pollSeconds: number) => {
  const { identityRequired, ...prechat } = prechatOf(chatbot);
  const branding = resolveBranding(chatbot.branding as StoredBranding);
  return {
    public_key: chatbot.publicKey,
    name: chatbot.name,
    welcome_message: chatbot.welcomeMessage,
    branding: { ...branding, language: languageOf(branding) },
    prechat,
    identity_required: identityRequired,
    realtime: { transport: 'socket.io', url: appUrl, path: '/socket.io' },
    poll_seconds: pollSeconds,
    powered_by: brandOf(chatbot.company, appUrl).powered_by,
  };
};

/** The widget's `language` setting; `auto` (the browser's) unless a language was stored. */
function languageOf(branding: object): string {
  const language = (branding as { language?: unknown }).language;
  return typeof language === 'string' && language ? language : 'auto';
}

/** The second state endpoint's shape; the first adds `conversation_id` in front. */
export const presentWidgetState = (conversation: Conversation, messages: Message[], targetSeconds: number) => ({
  status: conversation.status,
  handoff_state: conversation.handoffState,
  wait_remaining: waitRemaining(conversation, targetSeconds, new Date()),
  messages: messages.map(presentWidgetMessage),
});

/** Where the conversation stands, for the widget: the handoff reply and the stream's `done` event. */
export const presentConversationView = (view: ConversationView) => ({
  status: view.status,
  handoff_state: view.handoffState,
  wait_remaining: view.waitRemaining,
});
