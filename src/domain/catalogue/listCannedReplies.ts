import { Op } from 'sequelize';
import { CannedReply } from '../../models';

/** The replies an agent may insert: the workspace's shared ones and the agent's own, most used first. */
export function listCannedReplies(companyId: number, userId: number): Promise<CannedReply[]> {
  return CannedReply.findAll({
    where: { companyId, [Op.or]: [{ userId: null }, { userId }] },
    order: [
      ['useCount', 'DESC'],
      ['lastUsedAt', 'DESC NULLS LAST'],
      ['title', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}
