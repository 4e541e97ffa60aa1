import type { FindOptions } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation, type Chatbot } from '../../models';
import { isConversationId } from './publicId';

type Options = Omit<FindOptions<Conversation>, 'where'>;

export type ConversationWithChatbot = Conversation & { chatbot: Chatbot };

/** A conversation of this workspace by its public uuid, or null (also for a malformed id). */
export function conversationNamed(companyId: number, publicId: string, options: Options = {}): Promise<Conversation | null> {
  return isConversationId(publicId) ? Conversation.findOne({ ...options, where: { companyId, publicId } }) : Promise.resolve(null);
}

/**
 * A conversation of this workspace by its public uuid. Missing, foreign and malformed ids are the
 * same 404: the cases are deliberately indistinguishable, so ids cannot be probed.
 */
export async function findConversation(companyId: number, publicId: string, options: Options = {}): Promise<Conversation> {
  const conversation = await conversationNamed(companyId, publicId, options);
  if (!conversation) throw notFound('Conversation');
  return conversation;
}

/** The same, with the chatbot whose provider and model answer for the conversation (AI assist). */
export async function findConversationWithChatbot(companyId: number, publicId: string): Promise<ConversationWithChatbot> {
  return (await findConversation(companyId, publicId, { include: [{ association: 'chatbot', required: true }] })) as ConversationWithChatbot;
}
