import { Op } from 'sequelize';
import type { ChatMessage } from '../../ai/providers/types';
import { Message } from '../../models';

const TURNS = 12;

/** The turns before `beforeId`, oldest first, as the model sees them (agents speak as the assistant). */
export async function historyBefore(conversationId: number, beforeId: number): Promise<ChatMessage[]> {
  const rows = await Message.findAll({
    where: { conversationId, id: { [Op.lt]: beforeId }, role: ['visitor', 'assistant', 'agent'] },
    order: [['id', 'DESC']],
    limit: TURNS,
    attributes: ['role', 'content'],
  });
  return rows.reverse().map((row) => ({ role: row.role === 'visitor' ? 'user' : 'assistant', content: row.content }));
}
