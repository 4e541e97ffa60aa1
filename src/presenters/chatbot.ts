import type { Chatbot } from '../models';
import { resolveBranding, type StoredBranding } from '../domain/chatbots/branding';
import { prechatOf } from '../domain/chatbots/prechat';
import type { ChatbotCounts } from '../domain/chatbots/findChatbot';

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

export const presentPortalChatbotListItem = (chatbot: Chatbot, counts: ChatbotCounts) => ({
  public_key: chatbot.publicKey,
  name: chatbot.name,
  role: chatbot.role,
  provider: chatbot.provider,
  model: chatbot.model,
  is_active: chatbot.isActive,
  knowledge_sources: counts.knowledgeSources,
  conversations: counts.conversations,
});

/** The pre-chat form with its defaults, and whether visitors must carry a verified identity. */
function presentPrechat(chatbot: Chatbot) {
  const { identityRequired, ...prechat } = prechatOf(chatbot);
  return { prechat, identity_required: identityRequired };
}

/** The settings the portal and the CLI both show; `prechat` and `identity_required` extend SPEC's detail. */
const presentSettings = (chatbot: Chatbot) => ({
  persona: chatbot.persona,
  instructions: chatbot.instructions,
  welcome_message: chatbot.welcomeMessage,
  branding: resolveBranding(chatbot.branding as StoredBranding),
  ...presentPrechat(chatbot),
});

export const presentPortalChatbotDetail = (chatbot: Chatbot, counts: ChatbotCounts) => ({
  ...presentPortalChatbotListItem(chatbot, counts),
  ...presentSettings(chatbot),
});

/** `parley chatbot show|update`: every setting, the workspace's first-response target included; never the identity secret. */
export const presentChatbotSettings = (chatbot: Chatbot, firstResponseSeconds: number) => ({
  ...presentV1ChatbotListItem(chatbot),
  company_id: chatbot.companyId,
  role: chatbot.role,
  ...presentSettings(chatbot),
  first_response_seconds: firstResponseSeconds,
});

/** The portal update's answer: the detail with only the four branding fields that update can change. */
export function presentUpdatedPortalChatbot(chatbot: Chatbot, counts: ChatbotCounts) {
  const { primary_color, launcher_text, position, theme } = resolveBranding(chatbot.branding as StoredBranding);
  return { ...presentPortalChatbotDetail(chatbot, counts), branding: { primary_color, launcher_text, position, theme } };
}
