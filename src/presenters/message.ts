import type { SentMessage } from '../actors/conversation/protocol';
import type { Message } from '../models';
import { displayTime } from './displayTime';
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

/** A transcript line in the agent app: times are display strings there. */
export const presentAgentMessage = (message: { id: number; role: Message['role']; content: string; at: Date }) => ({
  id: Number(message.id),
  role: message.role,
  content: message.content,
  at: displayTime(message.at),
});

/** A line of the thread an agent reads (`active.messages`), with the visitor's rating of an AI answer (null when unrated, and on every other line). */
export const presentThreadMessage = (message: { id: number; role: Message['role']; content: string; at: Date; rating: Message['rating'] }) => ({
  ...presentAgentMessage(message),
  rating: message.rating ?? null,
});

/** A line an agent just sent, as the conversation actor reported it (`at` is ISO there). */
export const presentSentMessage = (sent: SentMessage) => presentAgentMessage({ id: sent.id, role: 'agent', content: sent.content, at: new Date(sent.at) });
