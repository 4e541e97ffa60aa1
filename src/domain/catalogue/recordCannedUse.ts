import { fn, literal } from 'sequelize';
import { CannedReply } from '../../models';
import { forbidden, notFound } from '../../errors';

/**
 * Counts one use of a canned reply, which is what orders the agent's list. 404 when the workspace has
 * no reply with that id; 403 when it is another agent's own. The increment happens in SQL so
 * concurrent uses from several devices are all counted.
 */
export async function recordCannedUse(companyId: number, userId: number, cannedId: number): Promise<void> {
  const reply = await CannedReply.findOne({ attributes: ['id', 'userId'], where: { id: cannedId, companyId } });
  if (!reply) throw notFound('Canned reply');
  if (reply.userId !== null && reply.userId !== userId) throw forbidden('This canned reply belongs to another agent.');
  // `silent`: using a reply is not editing it, so updated_at keeps meaning "last edited".
  await CannedReply.update({ useCount: literal('use_count + 1'), lastUsedAt: fn('now') }, { where: { id: reply.id, companyId }, silent: true });
}
