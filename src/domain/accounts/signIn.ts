import type { LoginLockout } from './loginLockout';
import { Company, type User } from '../../models';
import { hashPassword, verifyPassword } from '../../security/passwords';
import { AppError } from '../../errors';
import { findUserByEmail } from './findUserByEmail';
import { upgradePasswordHash } from './upgradePasswordHash';

/** One wording for every refusal a caller could learn something from (login failures are deliberately vague). */
export const WRONG_CREDENTIALS = 'These credentials do not match our records.';

export type SignedInUser = User & { company: Company };

/**
 * Decides, once the password is proven, whether this surface admits the user: undefined to admit,
 * else the 403 message (the portal words it like a wrong password; the agent app may say why).
 */
export type Admission = (user: SignedInUser) => string | undefined;

// Unknown addresses are checked against this hash too, so timing does not reveal which addresses exist.
let decoyHash: Promise<string> | undefined;

/**
 * Password sign-in shared by the portal and the agent app. Order: lockout (429: reserves one attempt,
 * or refuses once 5 are spent), credentials (401, the attempt stays counted; a right password clears the
 * counter), then the surface's admission (403, not counted: the password was right).
 * A proven password also upgrades a hash stored with weaker parameters, even when the surface then
 * refuses the user: that is the one moment the plain password is known.
 */
export async function signIn(lockout: LoginLockout, email: string, password: string, admit: Admission): Promise<SignedInUser> {
  // Reserved before the slow hash check, so a parallel burst cannot run more checks than the lockout allows.
  const attempt = await lockout.begin(email);
  let user: User | null;
  let passwordMatches: boolean;
  try {
    user = await findUserByEmail(email);
    const stored = user?.passwordHash ?? (await (decoyHash ??= hashPassword('decoy password')));
    passwordMatches = await verifyPassword(password, stored);
  } catch (error) {
    // A broken lookup says nothing about the password: it must not count towards locking the user out.
    // The original error is what the caller needs to see, not a failed refund.
    await attempt.abandoned().catch(() => undefined);
    throw error;
  }
  if (!user || !passwordMatches) {
    await attempt.failed();
    throw new AppError(401, 'invalid_credentials', WRONG_CREDENTIALS);
  }
  await attempt.succeeded();
  await upgradePasswordHash(user, password);
  const company = await Company.findByPk(user.companyId, { rejectOnEmpty: true });
  const signedIn = Object.assign(user, { company }) as SignedInUser;
  const refusal = admit(signedIn);
  if (refusal) throw new AppError(403, 'forbidden', refusal);
  return signedIn;
}
