import { z } from 'zod';
import { roleCan } from '../../../config/roles';
import { signIn, type Admission } from '../../domain/accounts/signIn';
import { issueToken, revokeToken } from '../../domain/accounts/tokens';
import { authOf } from '../../http/authenticate';
import { credentialsBody } from '../../http/credentials';
import { agentSession, agentToken } from '../../openapi/responses/agent';
import { messageBody } from '../../openapi/responses/common';
import { presentAgentSession, presentAgentToken } from '../../presenters/agent';
import { endpoint } from '../endpoint';

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

const agent = { surface: 'agent', auth: 'agent' } as const;

/** Sign-in (above the token gate) for the agent apps, and the calling agent token's own life cycle. */
export const sessionEndpoints = [
  endpoint({
    surface: 'agent',
    auth: 'none',
    method: 'post',
    path: '/api/agent/login',
    summary: 'Sign in to an agent app (owners, admins and agents)',
    description: 'Shares the login lockout with the portal login. The route limit counts before validation.',
    limit: { name: 'agent-login', points: 10, seconds: 60, by: 'ip' },
    body: { schema: agentLoginBody, examples: [{ email: 'agent@example.com', password: 'correct horse battery staple', device_name: 'Pixel 8' }] },
    responses: {
      200: { description: 'An `agent` token (30 days) and the session it opens.', json: agentToken },
      401: 'Wrong password or unknown address ("These credentials do not match our records.").',
      403: 'A viewer, a suspended user or a suspended workspace.',
      429: 'Route limit, or the address is locked out (`Retry-After`).',
    },
    handler: async ({ ctx, body: parseBody }, _req, res) => {
      const body = parseBody();
      const user = await signIn(ctx.lockout, body.email, body.password, admitToAgentApp);
      const { plain, token } = await issueToken(user, 'agent', { name: TOKEN_NAME, deviceName: body.device_name ?? null });
      res.json(presentAgentToken(plain, token, user, user.company));
    },
  }),
  // The old token stays valid until it lapses, so a client that loses this answer is not signed out;
  // the new one joins its family, so signing out with either ends both.
  endpoint({
    ...agent,
    method: 'post',
    path: '/api/agent/refresh',
    summary: 'Exchange a valid agent token for a fresh one (the old one stays valid until it lapses)',
    limit: { name: 'agent-refresh', points: 6, seconds: 3600, by: 'user' },
    responses: { 200: { description: 'Same answer as login.', json: agentToken } },
    handler: async (_input, req, res) => {
      const { token: current, user, company } = authOf(req);
      const { plain, token } = await issueToken(user, 'agent', { name: current.name, deviceName: current.deviceName, family: current.family });
      res.json(presentAgentToken(plain, token, user, company));
    },
  }),
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/me',
    summary: 'The calling token and its holder',
    responses: { 200: { description: 'The session.', json: agentSession } },
    handler: (_input, req, res) => {
      const { token, user, company } = authOf(req);
      res.json(presentAgentSession(token, user, company));
    },
  }),
  endpoint({
    ...agent,
    method: 'post',
    path: '/api/agent/logout',
    summary: 'Sign out: revoke the calling token and its family (the sign-in and its refreshes)',
    responses: { 200: { description: 'Signed out.', json: messageBody } },
    handler: async (_input, req, res) => {
      await revokeToken(authOf(req).token.id);
      res.json({ message: 'Signed out.' });
    },
  }),
];
