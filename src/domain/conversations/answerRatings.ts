import type { Transaction } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation, Message, type MessageRating } from '../../models';
import type { VisitorOwner } from './visitorConversations';

export const MESSAGE_RATINGS = ['up', 'down'] as const satisfies readonly MessageRating[];

export interface AnswerRating {
  messageId: number;
  rating: MessageRating;
  comment: string | null;
}

/**
 * The public id of the conversation holding AI answer `id`, when that conversation is this visitor's on
 * this chatbot. A non-numeric id, a visitor's or agent's line, another visitor's answer and a missing
 * one are the same 404: the widget learns nothing about lines that are not its own.
 */
export async function conversationOfAnswer(owner: VisitorOwner, id: string): Promise<string> {
  const answer = /^\d{1,15}$/.test(id) ? await Message.findOne({ where: { id: Number(id), role: 'assistant' }, attributes: ['conversationId'] }) : null;
  const conversation =
    answer && (await Conversation.findOne({ where: { id: answer.conversationId, chatbotId: owner.chatbotId, visitorKey: owner.visitorKey }, attributes: ['publicId'] }));
  if (!conversation) throw notFound('Message');
  return conversation.publicId;
}

/** Stores the rating on the answer's row (a repeat replaces it); false when the answer is not in this conversation. */
export async function rateAnswer(conversation: Pick<Conversation, 'id'>, { messageId, rating, comment }: AnswerRating, transaction: Transaction): Promise<boolean> {
  const [changed] = await Message.update(
    { rating, ratingComment: comment, ratedAt: new Date() },
    { where: { id: messageId, conversationId: conversation.id, role: 'assistant' }, transaction },
  );
  return changed > 0;
}
