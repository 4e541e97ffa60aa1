import type { Conversation } from '../../models';
import type { ConversationView } from './protocol';
import { waitRemaining } from '../../domain/conversations/transitions';

export const viewOf = (conversation: Conversation, targetSeconds: number, now = new Date()): ConversationView => ({
  conversationId: conversation.publicId,
  status: conversation.status,
  handoffState: conversation.handoffState,
  resolution: conversation.resolution,
  waitRemaining: waitRemaining(conversation, targetSeconds, now),
});

/** `conversation.updated` / `conversation.created` data. */
export const conversationEventData = (conversation: Conversation, targetSeconds: number) => {
  const view = viewOf(conversation, targetSeconds);
  return {
    id: view.conversationId,
    chatbot_id: conversation.chatbotId,
    visitor_id: conversation.visitorKey,
    status: view.status,
    handoff_state: view.handoffState,
    wait_remaining: view.waitRemaining,
    assigned_user_id: conversation.assignedUserId,
    last_message_preview: conversation.lastMessagePreview,
    unread_count: conversation.unreadCount,
  };
};
