import { fn, col, Op, where as sqlWhere } from 'sequelize';
import { Tag } from '../../models';
import { validationFailed } from '../../errors';

export async function createTag(companyId: number, input: { name: string; color?: string }): Promise<Tag> {
  const name = input.name.trim();
  if (await Tag.count({ where: { [Op.and]: [{ companyId }, sqlWhere(fn('lower', col('name')), name.toLowerCase())] } })) {
    throw validationFailed({ name: ['A tag with this name already exists.'] });
  }
  return Tag.create({ companyId, name, color: input.color ?? '#6b7280' });
}
