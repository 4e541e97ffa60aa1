import { Op } from 'sequelize';
import { AiSuggestion, Message, type Chatbot } from '../../models';
import { settingsOf } from '../chatbots/flags';
import type { ConversationWithChatbot } from '../conversations/findConversation';
import { SPEAKERS } from './transcript';

/**
 * Whether an agent opening this conversation should get a reply drafted in the background (the
 * chatbot's `copilot` and `copilot_autostart`): the latest visitor, AI or agent message is the
 * visitor's, and no suggestion was drafted for this agent since it, so opening the thread again (or
 * on another device) costs no second call.
 */
export async function draftsOnOpen(conversation: ConversationWithChatbot, userId: number): Promise<boolean> {
  if (!autostarts(conversation.chatbot)) return false;
  const { id: conversationId, companyId } = conversation;
  const latest = await Message.findOne({ where: { companyId, conversationId, role: SPEAKERS }, order: [['id', 'DESC']], attributes: ['role', 'createdAt'] });
  if (latest?.role !== 'visitor') return false;
  const drafted = await AiSuggestion.count({ where: { companyId, conversationId, userId, createdAt: { [Op.gte]: latest.createdAt } } });
  return drafted === 0;
}

/** The chatbot's `copilot` and `copilot_autostart` both on: the flags alone, with no read. */
export function autostarts(chatbot: Pick<Chatbot, 'branding'>): boolean {
  const { copilot, copilot_autostart: autostart } = settingsOf(chatbot);
  return copilot && autostart;
}
