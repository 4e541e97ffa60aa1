import { Op } from 'sequelize';
import type { TokenAbility } from '../../../config/roles';
import { AccessToken, User } from '../../models';
import { hashPassword } from '../../security/passwords';

/**
 * Tokens a password sign-in hands out (portal and agent app logins, and the agent app's refresh of one).
 * API tokens are not among them: only an operator issues those (`parley token create`), for integrations
 * that never knew the password, so a password change leaves them working.
 */
const SESSION_ABILITIES: TokenAbility[] = ['portal', 'agent'];

/**
 * Sets a user's password and signs them out everywhere they signed in with the old one: whoever
 * changes a password (a forgotten one, or one that leaked) expects the old one to open nothing any more.
 */
export async function changePassword(user: User, password: string): Promise<{ revokedSessions: number }> {
  const passwordHash = await hashPassword(password);
  return User.sequelize!.transaction(async (transaction) => {
    await user.update({ passwordHash }, { transaction });
    const now = new Date();
    const [revokedSessions] = await AccessToken.update(
      { revokedAt: now },
      { where: { userId: user.id, ability: { [Op.in]: SESSION_ABILITIES }, revokedAt: null, expiresAt: { [Op.gt]: now } }, transaction },
    );
    return { revokedSessions };
  });
}
