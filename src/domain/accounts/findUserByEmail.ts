import { col, fn, where as sqlWhere, type Transaction } from 'sequelize';
import { User } from '../../models';

/** Emails are one per platform and compared case-insensitively, matching the users_email_unique index. */
export function findUserByEmail(email: string, transaction?: Transaction): Promise<User | null> {
  return User.findOne({ where: sqlWhere(fn('lower', col('email')), email.trim().toLowerCase()), transaction });
}
