import { Op } from 'sequelize';
import type { TokenAbility } from '../../../config/roles';
import { AccessToken, Company, User } from '../../models';
import { hashSecret, parseToken, randomSecret, secretMatches } from '../../security/tokens';
import { unprocessable } from '../../errors';

export const TOKEN_LIFETIME_DAYS = 30;
export const MAX_API_TOKENS_PER_USER = 20;

export interface IssuedToken {
  /** The only time the plain token exists: `<id>|<secret>`. */
  plain: string;
  token: AccessToken;
}

/** Issues a token for one surface; only the SHA-256 of its secret is stored. */
export async function issueToken(
  user: User,
  ability: TokenAbility,
  options: { name?: string; deviceName?: string | null; now?: Date } = {},
): Promise<IssuedToken> {
  if (ability === 'api') {
    const active = await AccessToken.count({ where: activeTokensOf(user.id, 'api', options.now) });
    if (active >= MAX_API_TOKENS_PER_USER) {
      throw unprocessable(`An account can hold at most ${MAX_API_TOKENS_PER_USER} API tokens. Revoke one first.`);
    }
  }
  const secret = randomSecret();
  const now = options.now ?? new Date();
  const token = await AccessToken.create({
    userId: user.id,
    companyId: user.companyId,
    name: options.name ?? `${ability} token`,
    ability,
    tokenHash: hashSecret(secret),
    deviceName: options.deviceName ?? null,
    expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_DAYS * 24 * 3600 * 1000),
  });
  return { plain: `${token.id}|${secret}`, token };
}

export type ResolvedToken = AccessToken & { user: User & { company: Company } };

/**
 * The live token behind a bearer string, with its user and company loaded; undefined when the string is
 * malformed, unknown, wrong, revoked or expired. The secret is compared in constant time.
 */
export async function resolveToken(raw: string, now = new Date()): Promise<ResolvedToken | undefined> {
  const parsed = parseToken(raw);
  if (!parsed) return undefined;
  const token = await AccessToken.findByPk(parsed.id, {
    include: [{ model: User, as: 'user', include: [{ model: Company, as: 'company' }] }],
  });
  if (!token || !secretMatches(parsed.secret, token.tokenHash)) return undefined;
  if (token.revokedAt || token.expiresAt <= now || !token.user?.company) return undefined;
  return token as ResolvedToken;
}

/** Revocation takes effect on the next request: the token is checked on every one. */
export async function revokeToken(tokenId: number): Promise<boolean> {
  const [count] = await AccessToken.update({ revokedAt: new Date() }, { where: { id: tokenId, revokedAt: null } });
  return count > 0;
}

function activeTokensOf(userId: number, ability: TokenAbility, now = new Date()) {
  return { userId, ability, revokedAt: null, expiresAt: { [Op.gt]: now } };
}
