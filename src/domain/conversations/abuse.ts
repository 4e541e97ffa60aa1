import { AppError } from '../../errors';
import { Conversation } from '../../models';
import type { VisitorOnChatbot } from './visitorConversations';

/** More visitor messages than this within FLOOD_WINDOW_MS in one conversation is flooding. */
export const FLOOD_LIMIT = 10;
export const FLOOD_WINDOW_MS = 60_000;
/** Messages refused for flooding before the conversation is blocked. */
export const STRIKES_TO_BLOCK = 3;

/** A blocked visitor's widget stream, heartbeat, handoff, reset and v1 send: refused, nothing stored. */
export const visitorBlocked = () => new AppError(403, 'blocked', 'This conversation has been blocked. Your message was not sent.');

/** A visitor message over the flood limit: refused, nothing stored, and a strike against the conversation. */
export const floodRefused = (retryAfterMs: number) =>
  new AppError(429, 'flooding', 'You are sending messages too fast. Your message was not sent; wait a moment before writing again.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });

/** A visitor line as the turn's checks need it: when it was written, and the end of its text (the language sample). */
export interface RecentLine {
  createdAt: Date;
  tail: string;
}

/**
 * How long until one more visitor message fits in the flood window (ms), or null when it fits now:
 * the line at the limit among the newest ones (read by the turn, `readForTurn`) decides.
 */
export function floodWaitMs(newestFirst: readonly RecentLine[], now = Date.now()): number | null {
  const oldest = newestFirst[FLOOD_LIMIT - 1];
  const wait = oldest ? oldest.createdAt.getTime() + FLOOD_WINDOW_MS - now : 0;
  return wait > 0 ? wait : null;
}

/**
 * Whether the visitor is blocked on this chatbot: their latest conversation with it is blocked, open
 * or closed. So a blocked visitor cannot get round the block by closing the conversation ("new
 * chat", a v1 send without `conversation_id`) or by starting another one; an agent's unblock (or a
 * conversation an agent opens for them with an invite) lifts it. By `conversations_by_visitor`.
 */
export async function latestConversationBlocked(owner: VisitorOnChatbot): Promise<boolean> {
  const latest = await Conversation.findOne({
    where: { chatbotId: owner.chatbotId, visitorKey: owner.visitorKey, companyId: owner.companyId },
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    attributes: ['blocked'],
  });
  return latest?.blocked ?? false;
}
