import type { Chatbot } from '../models';
import { resolveBranding, type StoredBranding } from '../domain/chatbots/branding';

export const presentV1ChatbotListItem = (chatbot: Chatbot) => ({
  id: chatbot.id,
  public_key: chatbot.publicKey,
  name: chatbot.name,
  provider: chatbot.provider,
  model: chatbot.model,
  is_active: chatbot.isActive,
});

export const presentV1ChatbotDetail = (chatbot: Chatbot, knowledgeSources: number) => ({
  public_key: chatbot.publicKey,
  name: chatbot.name,
  provider: chatbot.provider,
  model: chatbot.model,
  is_active: chatbot.isActive,
  knowledge_sources: knowledgeSources,
  branding: resolveBranding(chatbot.branding as StoredBranding),
});

/** The CLI's `chatbot create` answer: the list item plus the identity secret, shown this once. */
export const presentCreatedChatbot = (chatbot: Chatbot, identitySecret: string) => ({
  ...presentV1ChatbotListItem(chatbot),
  identity_secret: identitySecret,
});
