import { Router } from 'express';
import { z } from 'zod';
import { roleCan } from '../../../config/roles';
import type { AppContext } from '../../context';
import { signIn, type Admission } from '../../domain/accounts/signIn';
import { issueToken, revokeToken } from '../../domain/accounts/tokens';
import { authOf } from '../../http/authenticate';
import { credentialsBody } from '../../http/credentials';
import { smallJsonBody } from '../../http/jsonBody';
import { rateLimit } from '../../http/rateLimit';
import { parse } from '../../http/validate';
import { presentAgentSession, presentAgentToken } from '../../presenters/agent';

/** The name every agent-app token is stored under; the device it was issued to is kept beside it. */
const TOKEN_NAME = 'agent app';

/** Optional (absent stays undefined); blank counts as null, so a device without a name reads null rather than "". */
export const deviceName = z
  .string()
  .max(120)
  .nullish()
  .transform((value) => (value === undefined ? undefined : value?.trim() || null));

export const agentLoginBody = credentialsBody.extend({ device_name: deviceName });

/**
 * People who handle conversations in a live workspace. Unlike the portal, the password was right and
 * this surface may say so, but not which of the reasons applies.
 */
export const AGENT_APP_REFUSAL = 'This account cannot use the agent app, or its workspace is unavailable.';

const admitToAgentApp: Admission = (user) => {
  const admitted = !user.suspendedAt && !user.company.suspendedAt && roleCan(user.role, 'handle-conversations');
  return admitted ? undefined : AGENT_APP_REFUSAL;
};

/** Sign-in (above the token gate) for the agent apps. */
export function loginRoutes(ctx: AppContext): Router {
  return Router().post('/login', rateLimit(ctx.limiters, { name: 'agent-login', points: 10, duration: 60, by: 'ip' }), smallJsonBody, async (req, res) => {
    const body = parse(agentLoginBody, req.body);
    const user = await signIn(ctx.lockout, body.email, body.password, admitToAgentApp);
    const { plain, token } = await issueToken(user, 'agent', { name: TOKEN_NAME, deviceName: body.device_name ?? null });
    res.json(presentAgentToken(plain, token, user, user.company));
  });
}

/** Refresh, me and logout: the calling agent token's own life cycle. */
export function sessionRoutes(ctx: AppContext): Router {
  const router = Router();

  // The old token stays valid until it lapses, so a client that loses this answer is not signed out;
  // the new one joins its family, so signing out with either ends both.
  router.post('/refresh', rateLimit(ctx.limiters, { name: 'agent-refresh', points: 6, duration: 3600, by: 'user' }), async (req, res) => {
    const { token: current, user, company } = authOf(req);
    const { plain, token } = await issueToken(user, 'agent', { name: current.name, deviceName: current.deviceName, family: current.family });
    res.json(presentAgentToken(plain, token, user, company));
  });

  router.get('/me', (req, res) => {
    const { token, user, company } = authOf(req);
    res.json(presentAgentSession(token, user, company));
  });

  router.post('/logout', async (req, res) => {
    await revokeToken(authOf(req).token.id);
    res.json({ message: 'Signed out.' });
  });

  return router;
}
