import type { StoredAnswer } from '../actors/conversation/protocol';
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

/** The v1 send's `reply`: the AI's stored answer with its token counts. */
export const presentV1Reply = (answer: StoredAnswer) => ({
  id: answer.id,
  content: answer.content,
  model: answer.model,
  tokens_in: answer.tokensIn,
  tokens_out: answer.tokensOut,
});
