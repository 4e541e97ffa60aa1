import type { Conversation } from '../models';
import type { ConversationRow, TranscriptMessage } from '../domain/conversations/v1Reads';

export const presentV1ConversationRow = (row: ConversationRow) => ({
  id: row.id,
  public_id: row.publicId,
  status: row.status,
  visitor_id: row.visitorKey,
  last_message_at: row.lastMessageAt,
});

export const presentV1ConversationDetail = (conversation: Conversation, messages: TranscriptMessage[]) => ({
  id: conversation.publicId,
  status: conversation.status,
  visitor_id: conversation.visitorKey,
  messages: messages.map((message) => ({
    id: message.id,
    role: message.role,
    content: message.content,
    created_at: message.createdAt,
  })),
});
