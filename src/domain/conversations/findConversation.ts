import type { FindOptions } from 'sequelize';
import { notFound } from '../../errors';
import { Conversation } from '../../models';
import { isConversationId } from './publicId';

/**
 * A conversation of this workspace by its public uuid. Missing, foreign and malformed ids are the
 * same 404: the cases are deliberately indistinguishable, so ids cannot be probed.
 */
export async function findConversation(companyId: number, publicId: string, options: Omit<FindOptions<Conversation>, 'where'> = {}): Promise<Conversation> {
  const conversation = isConversationId(publicId) ? await Conversation.findOne({ ...options, where: { companyId, publicId } }) : null;
  if (!conversation) throw notFound('Conversation');
  return conversation;
}
