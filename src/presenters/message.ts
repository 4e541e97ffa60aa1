import type { Message } from '../models';
import { isoWithOffset } from './time';

/** A transcript line as the widget sees it (state endpoints, heartbeat, realtime). */
export const presentWidgetMessage = <R extends Message['role']>(message: { id: number; role: R; content: string; createdAt: Date }) => ({
  id: Number(message.id),
  role: message.role,
  content: message.content,
  at: isoWithOffset(message.createdAt),
});

/** `message.created` data: the widget line plus the conversation it belongs to. */
export const presentMessageEvent = (message: Message, conversationId: string) => ({
  ...presentWidgetMessage(message),
  conversation_id: conversationId,
  author_user_id: message.authorUserId ?? null,
});
