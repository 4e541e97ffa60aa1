import { Op } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation, Message } from '../../models';
import { isConversationId } from './publicId';

/** A visitor as one chatbot knows them (the widget's key names the chatbot, hence the workspace). */
export interface VisitorOwner {
  chatbotId: number;
  visitorKey: string;
}

/** The same visitor with their workspace, for callers that start from the workspace (actors, agents). */
export interface VisitorOnChatbot extends VisitorOwner {
  companyId: number;
}

/** The visitor's most recent conversation with this chatbot; 404 when there is none. */
export async function latestVisitorConversation(owner: VisitorOwner): Promise<Conversation> {
  const found = await Conversation.findOne({ where: { chatbotId: owner.chatbotId, visitorKey: owner.visitorKey }, order: [['createdAt', 'DESC'], ['id', 'DESC']] });
  if (!found) throw notFound('Conversation');
  return found;
}

/**
 * A verified customer's most recent conversation with this chatbot, on any device (its public id), by
 * `conversations_by_identity`; null when they have none. Only this chatbot's: the token was checked
 * against its secret, and the same `sub` on another chatbot is another site's customer.
 */
export async function latestCustomerConversation(chatbotId: number, sub: string): Promise<string | null> {
  const found = await Conversation.findOne({ where: { chatbotId, identitySub: sub }, order: [['createdAt', 'DESC'], ['id', 'DESC']], attributes: ['publicId'] });
  return found?.publicId ?? null;
}

/** One conversation, only if it is this visitor's on this chatbot (404 alike for missing, foreign and malformed ids). */
export async function visitorConversation(owner: VisitorOwner, publicId: string): Promise<Conversation> {
  const found = await findVisitorConversation(owner, publicId);
  if (!found) throw notFound('Conversation');
  return found;
}

/** Whether the conversation (by public id) is this visitor's on this chatbot: the widget's proof of ownership. */
export async function ownsConversation(owner: VisitorOnChatbot, publicId: string): Promise<boolean> {
  return (await findVisitorConversation(owner, publicId, ['id'])) !== null;
}

/** The visitor's open conversation on this chatbot (there is at most one), by `conversations_by_visitor`. */
export async function latestOpenConversation(owner: VisitorOnChatbot): Promise<string | null> {
  const found = await Conversation.findOne({
    where: { chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, companyId: owner.companyId, status: { [Op.ne]: 'closed' } },
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    attributes: ['publicId'],
  });
  return found?.publicId ?? null;
}

/** Whether a conversation with this public id has been written (an id may be chosen before its first write). */
export async function conversationExists(publicId: string): Promise<boolean> {
  return (await Conversation.count({ where: { publicId } })) > 0;
}

/** The transcript after message `after` (all of it without), oldest first: the widget's gap-free catch-up. */
export function messagesAfter(conversationId: number, after?: number): Promise<Message[]> {
  return Message.findAll({
    where: { conversationId, ...(after !== undefined && { id: { [Op.gt]: after } }) },
    order: [['id', 'ASC']],
    attributes: ['id', 'role', 'content', 'createdAt'],
  });
}

function findVisitorConversation(owner: VisitorOwner | VisitorOnChatbot, publicId: string, attributes?: string[]): Promise<Conversation | null> {
  if (!isConversationId(publicId)) return Promise.resolve(null);
  const workspace = 'companyId' in owner ? { companyId: owner.companyId } : {};
  return Conversation.findOne({ where: { publicId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, ...workspace }, attributes });
}
