import type { RequestHandler } from 'express';
import { roleCan, type RoleAbility, type TokenAbility } from '../../config/roles';
import type { AccessToken, Company, User } from '../models';
import { resolveToken } from '../domain/accounts/tokens';
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
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match ? await resolveToken(match[1]!) : undefined;
    if (!token) throw unauthenticated();
    if (token.ability !== ability) throw forbidden('This token cannot be used for this API.');
    const { user } = token;
    if (user.suspendedAt) throw forbidden('This account is suspended.');
    if (user.company.suspendedAt) throw forbidden('This workspace is suspended.');
    req.auth = { token, user, company: user.company };
    touch(token);
    next();
  };
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

/** Records last use at most once a minute per token, off the request's critical path. */
function touch(token: AccessToken): void {
  const now = Date.now();
  if (token.lastUsedAt && now - token.lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
  token.update({ lastUsedAt: new Date(now) }).catch(() => undefined);
}
