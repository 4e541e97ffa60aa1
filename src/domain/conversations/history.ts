import { Op } from 'sequelize';
import type { ChatMessage } from '../../ai/providers/types';
import { Message } from '../../models';

/** How many earlier turns a reply is given (the prompt keeps those within its budget). */
export const HISTORY_TURNS = 12;
/** The transcript lines a reply is given as turns (notes and system lines are not). */
export const HISTORY_ROLES = ['visitor', 'assistant', 'agent'] as const;

/** The turns before `beforeId`, oldest first, as the model sees them (agents speak as the assistant). */
export async function historyBefore(conversationId: number, beforeId: number): Promise<ChatMessage[]> {
  const rows = await Message.findAll({
    where: { conversationId, id: { [Op.lt]: beforeId }, role: [...HISTORY_ROLES] },
    order: [['id', 'DESC']],
    limit: HISTORY_TURNS,
    attributes: ['role', 'content'],
  });
  return rows.reverse().map(asTurn);
}

/** A transcript line as the model sees it: agents speak as the assistant. */
export const asTurn = (line: { role: string; content: string }): ChatMessage => ({ role: line.role === 'visitor' ? 'user' : 'assistant', content: line.content });
