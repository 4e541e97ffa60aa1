import { Op } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation, Message } from '../../models';
import { isConversationId } from './publicId';

export interface VisitorOwner {
  chatbotId: number;
  visitorKey: string;
}

/** The visitor's most recent conversation with this chatbot; 404 when there is none. */
export async function latestVisitorConversation(owner: VisitorOwner): Promise<Conversation> {
  const found = await Conversation.findOne({ where: { chatbotId: owner.chatbotId, visitorKey: owner.visitorKey }, order: [['createdAt', 'DESC'], ['id', 'DESC']] });
  if (!found) throw notFound('Conversation');
  return found;
}

/** One conversation, only if it is this visitor's on this chatbot (404 alike for missing and foreign). */
export async function visitorConversation(owner: VisitorOwner, publicId: string): Promise<Conversation> {
  if (!isConversationId(publicId)) throw notFound('Conversation');
  const found = await Conversation.findOne({ where: { publicId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey } });
  if (!found) throw notFound('Conversation');
  return found;
}

/** The transcript after message `after` (all of it without), oldest first: the widget's gap-free catch-up. */
export function messagesAfter(conversationId: number, after?: number): Promise<Message[]> {
  return Message.findAll({
    where: { conversationId, ...(after !== undefined && { id: { [Op.gt]: after } }) },
    order: [['id', 'ASC']],
    attributes: ['id', 'role', 'content', 'createdAt'],
  });
}
