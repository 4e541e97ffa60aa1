import type { Chatbot, Conversation } from '../../models';
import { findConversation } from '../conversations/findConversation';

export type ConversationWithChatbot = Conversation & { chatbot: Chatbot };

/**
 * A conversation of this workspace by its public uuid (404 for missing, foreign and malformed ids),
 * with the chatbot whose provider and model answer for it.
 */
export async function conversationOf(companyId: number, publicId: string): Promise<ConversationWithChatbot> {
  return (await findConversation(companyId, publicId, { include: [{ association: 'chatbot', required: true }] })) as ConversationWithChatbot;
}
