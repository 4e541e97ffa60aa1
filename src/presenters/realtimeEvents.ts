import type { Conversation } from '../models';
import type { VisitorRecord } from '../domain/visitors/records';
import { waitRemaining } from '../domain/conversations/transitions';
import type { PushNotification } from '../domain/push/payload';

/** `conversation.created` / `conversation.updated` data: the inbox row's facts, read after the write committed. */
export const presentConversationEvent = (conversation: Conversation, targetSeconds: number, now = new Date()) => ({
  id: conversation.publicId,
  chatbot_id: conversation.chatbotId,
  visitor_id: conversation.visitorKey,
  status: conversation.status,
  handoff_state: conversation.handoffState,
  wait_remaining: waitRemaining(conversation, targetSeconds, now),
  assigned_user_id: conversation.assignedUserId,
  last_message_preview: conversation.lastMessagePreview,
  unread_count: conversation.unreadCount,
});

/** `message.delta` data: one piece of the AI's streamed answer to the visitor message `replyTo`. */
export const presentMessageDelta = (conversationId: string, replyTo: number, delta: string) => ({
  conversation_id: conversationId,
  reply_to: replyTo,
  delta,
});

/** `visitor.online` / `visitor.offline` data: who arrived or left, and where they are. */
export const presentVisitorPresence = (visitor: Pick<VisitorRecord, 'visitorKey' | 'chatbotId' | 'page' | 'title'>, online: boolean) => ({
  id: visitor.visitorKey,
  chatbot_id: visitor.chatbotId,
  page: visitor.page,
  title: visitor.title,
  online,
});

/** `suggestion.ready` data: a reply the copilot drafted for the agent who opened the conversation (`copilot_autostart`). */
export const presentSuggestionReady = (conversationId: string, suggestionId: number, suggestion: string) => ({
  conversation_id: conversationId,
  id: suggestionId,
  suggestion,
});

/** `typing` data: who started or stopped typing; `preview` is the visitor's unsent text, only under `behavior_tracking`. */
export const presentTyping = (conversationId: string, who: 'visitor' | 'agent', name: string, typing: boolean, preview?: string) => ({
  conversation_id: conversationId,
  who,
  name,
  typing,
  ...(preview !== undefined && { preview }),
});

/** `conversation.assigned` data: the conversation the channel's agent now holds, and who gave it to them (null: the system). */
export const presentConversationAssigned = (conversationId: string, by: number | null) => ({
  conversation_id: conversationId,
  by,
});

/** `read` data: the channel's agent read the conversation, on whichever of their devices. */
/** A waiting visitor's place in the workspace's queue (1 = next), pushed to their widget as the queue moves. */
export const presentQueuePosition = (conversationId: string, queuePosition: number) => ({ conversation_id: conversationId, queue_position: queuePosition });

export const presentConversationRead = (conversationId: string) => ({ conversation_id: conversationId });

/** `notification` data: exactly what a push to that agent's devices carries (docs/push.md "Payload"). */
export const presentNotification = (notification: PushNotification): PushNotification => notification;

/** An agent who has a conversation open. */
export interface Watcher {
  id: number;
  name: string;
}

/** `conversation.watchers` data: everyone who has the conversation open now, after an agent arrived or left. */
export const presentConversationWatchers = (conversationId: string, watchers: Watcher[]) => ({
  conversation_id: conversationId,
  watchers,
});
