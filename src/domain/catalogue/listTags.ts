import { col, fn } from 'sequelize';
import { Tag } from '../../models';

/** The workspace's tag catalogue, alphabetical regardless of case. */
export function listTags(companyId: number): Promise<Tag[]> {
  return Tag.findAll({ where: { companyId }, order: [[fn('lower', col('name')), 'ASC'], ['id', 'ASC']] });
}
