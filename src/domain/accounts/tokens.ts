import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { TokenAbility } from '../../../config/roles';
import { AccessToken, Company, User } from '../../models';
import { hashSecret, parseToken, randomSecret, secretMatches } from '../../security/tokens';
import { unprocessable } from '../../errors';
import { announceAccessChange } from './accessChanges';
import { tokenWithOwner, type TokenWithOwner } from './loadToken';

export const TOKEN_LIFETIME_DAYS = 30;
export const MAX_API_TOKENS_PER_USER = 20;

/**
 * Tokens a password sign-in hands out (portal and agent app logins, and the agent app's refresh of one).
 * API tokens are not among them: only an operator issues those (`parley token create`), for integrations
 * that never knew the password, so signing a user out everywhere leaves them working.
 */
const SESSION_ABILITIES: TokenAbility[] = ['portal', 'agent'];

export interface IssuedToken {
  /** The only time the plain token exists: `<id>|<secret>`. */
  plain: string;
  token: AccessToken;
}

/**
 * Issues a token for one surface; only the SHA-256 of its secret is stored. A refresh passes the
 * `family` of the token it replaces, so signing out ends both; anything else starts a family.
 */
export async function issueToken(
  user: User,
  ability: TokenAbility,
  options: { name?: string; deviceName?: string | null; now?: Date; family?: string } = {},
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
    ...(options.family && { family: options.family }),
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
  const token = await tokenWithOwner(parsed.id);
  return token && isLive(token, parsed.secret, now) ? token : undefined;
}

/**
 * Whether a token read by its id (with its user and workspace, `tokenWithOwner`) lets the holder of
 * `secret` in: the secret matches (compared in constant time), the token is neither revoked nor
 * expired, its user and workspace are there. The one definition, for `resolveToken` and for a
 * statement that reads the token together with what the request asks for (src/domain/inbox/listAsToken.ts).
 */
export function isLive(token: TokenWithOwner, secret: string, now: Date): token is ResolvedToken {
  if (!secretMatches(secret, token.tokenHash)) return false;
  return !token.revokedAt && token.expiresAt > now && Boolean(token.user?.company);
}

/**
 * Revokes a token and its whole family (the sign-in it came from and every refresh of it): signing out
 * of one ends the session, not only its latest token. Requests are refused from the next one on (the
 * token is checked on every one), realtime connections are closed on commit. False when nothing was live.
 */
export async function revokeToken(tokenId: number): Promise<boolean> {
  const token = await AccessToken.findByPk(tokenId, { attributes: ['userId', 'family'] });
  if (!token) return false;
  return AccessToken.sequelize!.transaction(async (transaction) => {
    const [count] = await AccessToken.update({ revokedAt: new Date() }, { where: { family: token.family, revokedAt: null }, transaction });
    if (count > 0) await announceAccessChange({ user: token.userId }, transaction);
    return count > 0;
  });
}

/** Signs a user out of the portal and the agent app everywhere; returns how many live tokens that revoked. */
export async function revokeSessions(userId: number, transaction?: Transaction): Promise<number> {
  const revoke = async (transaction: Transaction) => {
    const now = new Date();
    const [count] = await AccessToken.update(
      { revokedAt: now },
      { where: { userId, ability: { [Op.in]: SESSION_ABILITIES }, revokedAt: null, expiresAt: { [Op.gt]: now } }, transaction },
    );
    await announceAccessChange({ user: userId }, transaction);
    return count;
  };
  return transaction ? revoke(transaction) : AccessToken.sequelize!.transaction(revoke);
}

/** Which of the given tokens still let their holder in: live, and neither the user nor the workspace suspended. */
export async function tokensStillValid(tokenIds: number[]): Promise<Set<number>> {
  if (tokenIds.length === 0) return new Set();
  const rows = await AccessToken.sequelize!.query<{ id: string }>(
    `SELECT t.id FROM access_tokens t
       JOIN users u ON u.id = t.user_id
       JOIN companies c ON c.id = u.company_id
      WHERE t.id = ANY($1::bigint[]) AND t.revoked_at IS NULL AND t.expires_at > now()
        AND u.suspended_at IS NULL AND c.suspended_at IS NULL`,
    { bind: [tokenIds], type: QueryTypes.SELECT },
  );
  return new Set(rows.map((row) => Number(row.id)));
}

function activeTokensOf(userId: number, ability: TokenAbility, now = new Date()) {
  return { userId, ability, revokedAt: null, expiresAt: { [Op.gt]: now } };
}
