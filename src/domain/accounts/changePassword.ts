import { User } from '../../models';
import { hashPassword } from '../../security/passwords';
import { revokeSessions } from './tokens';

/**
 * Sets a user's password and signs them out everywhere they signed in with the old one: whoever
 * changes a password (a forgotten one, or one that leaked) expects the old one to open nothing any more.
 */
export async function changePassword(user: User, password: string): Promise<{ revokedSessions: number }> {
  const passwordHash = await hashPassword(password);
  return User.sequelize!.transaction(async (transaction) => {
    await user.update({ passwordHash }, { transaction });
    return { revokedSessions: await revokeSessions(user.id, transaction) };
  });
}
