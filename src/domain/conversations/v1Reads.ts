import { isoUtcMicros } from '../../db/sql';
import { Conversation, Message } from '../../models';
import type { ConversationStatus, MessageRole } from '../../models';
import { findConversation } from './findConversation';

export interface ConversationRow {
  id: number;
  publicId: string;
  status: ConversationStatus;
  visitorKey: string;
  lastMessageAt: string;
}

export interface TranscriptMessage {
  id: number;
  role: MessageRole;
  content: string;
  createdAt: string;
}

/** One page of a chatbot's conversations, most recent activity first (index conversations_by_chatbot). */
export async function pageChatbotConversations(
  chatbotId: number,
  page: { offset: number; limit: number },
): Promise<{ rows: ConversationRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    Conversation.findAll({
      where: { chatbotId },
      attributes: ['id', 'publicId', 'status', 'visitorKey', [isoUtcMicros('"Conversation"."last_message_at"'), 'lastMessageAt']],
      order: [['lastMessageAt', 'DESC'], ['id', 'DESC']],
      offset: page.offset,
      limit: page.limit,
      raw: true,
    }) as unknown as Promise<ConversationRow[]>,
    Conversation.count({ where: { chatbotId } }),
  ]);
  return { rows, total };
}

/** A conversation of this workspace by public id with its whole transcript in order. */
export async function findConversationTranscript(
  companyId: number,
  publicId: string,
): Promise<{ conversation: Conversation; messages: TranscriptMessage[] }> {
  const conversation = await findConversation(companyId, publicId);
  const messages = (await Message.findAll({
    where: { conversationId: conversation.id },
    attributes: ['id', 'role', 'content', [isoUtcMicros('"Message"."created_at"'), 'createdAt']],
    order: [['id', 'ASC']],
    raw: true,
  })) as unknown as TranscriptMessage[];
  return { conversation, messages };
}

