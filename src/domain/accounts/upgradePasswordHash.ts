import { User } from '../../models';
import { hashPassword, needsRehash } from '../../security/passwords';

/**
 * Once a sign-in has proven the password, replaces a hash made with weaker scrypt parameters than the
 * current ones (src/security/passwords.ts): the plain password is only ever at hand at that moment.
 * Returns whether the stored hash changed.
 */
export async function upgradePasswordHash(user: User, password: string): Promise<boolean> {
  if (!needsRehash(user.passwordHash)) return false;
  const upgraded = await hashPassword(password);
  // Only over the hash that was just checked, so a password changed meanwhile (`parley user password`) wins.
  const [updated] = await User.update({ passwordHash: upgraded }, { where: { id: user.id, passwordHash: user.passwordHash } });
  return updated > 0;
}
