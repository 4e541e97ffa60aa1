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
