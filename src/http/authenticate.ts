import type { RequestHandler } from 'express';
import { roleCan, type RoleAbility, type TokenAbility } from '../../config/roles';
import type { AccessToken, Company, User } from '../models';
import { resolveToken, type ResolvedToken } from '../domain/accounts/tokens';
import { forbidden, unauthenticated } from '../errors';

export interface AuthContext {
  token: AccessToken;
  user: User;
  company: Company;
}

declare global {
  namespace Express {
    interface Request {
      /** Set by `authenticate` on every route of an authenticated surface. */
      auth?: AuthContext;
    }
  }
}

const TOUCH_INTERVAL_MS = 60_000;

/**
 * Bearer authentication for one surface (docs/api.md "Authentication"): 401 for a missing, malformed,
 * unknown, expired or revoked token; 403 for a token of another surface or a suspended account/workspace.
 */
export function authenticate(ability: TokenAbility): RequestHandler {
  return async (req, _res, next) => {
    const bearer = bearerOf(req.get('authorization'));
    const token = bearer ? await resolveToken(bearer) : undefined;
    if (!token) throw unauthenticated();
    req.auth = admit(token, ability);
    next();
  };
}

/** The bearer string of an `Authorization` header; undefined when there is none or it is not `Bearer <token>`. */
export function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/**
 * A live token (`resolveToken`) admitted on a surface: 403 for a token of another surface or a
 * suspended account or workspace. Records its use.
 */
export function admit(token: ResolvedToken, ability: TokenAbility): AuthContext {
  if (token.ability !== ability) throw forbidden('This token cannot be used for this API.');
  const { user } = token;
  if (user.suspendedAt) throw forbidden('This account is suspended.');
  if (user.company.suspendedAt) throw forbidden('This workspace is suspended.');
  touch(token);
  return { token, user, company: user.company };
}

/** 403 unless the signed-in user's role holds the ability (config/roles.ts). */
export function requireAbility(ability: RoleAbility): RequestHandler {
  return (req, _res, next) => {
    if (!roleCan(authOf(req).user.role, ability)) throw forbidden();
    next();
  };
}

/** The authenticated caller of a route mounted behind `authenticate`. */
export function authOf(req: Express.Request): AuthContext {
  if (!req.auth) throw unauthenticated();
  return req.auth;
}

/**
 * When this process last wrote each token's last use. Many requests with one token at once (a busy
 * integration, an inbox app's reconnect burst) read the same stale `lastUsedAt`: without this they
 * would each send an UPDATE and queue on the row's lock. Cleared when large: a lost entry costs one write.
 */
const touchedAt = new Map<number, number>();
const TOUCHED_ENTRIES = 10_000;

/** Records last use at most once a minute per token and process, off the request's critical path. */
function touch(token: AccessToken): void {
  const now = Date.now();
  const last = Math.max(token.lastUsedAt?.getTime() ?? 0, touchedAt.get(token.id) ?? 0);
  if (now - last < TOUCH_INTERVAL_MS) return;
  if (touchedAt.size >= TOUCHED_ENTRIES) touchedAt.clear();
  touchedAt.set(token.id, now);
  token.update({ lastUsedAt: new Date(now) }).catch(() => undefined);
}
