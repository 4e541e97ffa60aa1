import { z } from 'zod';
import { brandOf } from '../../domain/accounts/brand';
import { signIn, WRONG_CREDENTIALS, type Admission } from '../../domain/accounts/signIn';
import { issueToken, revokeToken } from '../../domain/accounts/tokens';
import { countChatbots } from '../../domain/chatbots/findChatbot';
import { allowanceOf } from '../../domain/usage/allowance';
import { authOf } from '../../http/authenticate';
import { credentialsBody } from '../../http/credentials';
import { brand, portalCompany, portalLimits, portalUsage, portalUser } from '../../openapi/responses/accounts';
import { messageBody } from '../../openapi/responses/common';
import { presentPortalCompany, presentPortalLimits, presentPortalUsage, presentPortalUser } from '../../presenters/account';
import { roleCan } from '../../../config/roles';
import { endpoint } from '../endpoint';

/** Owners and admins of a live workspace with the portal on; every refusal reads like a wrong password. */
const admitToPortal: Admission = (user) => {
  const admitted = !user.suspendedAt && !user.company.suspendedAt && user.company.portalEnabled && roleCan(user.role, 'manage-workspace');
  return admitted ? undefined : WRONG_CREDENTIALS;
};

const portal = { surface: 'portal', auth: 'portal' } as const;

/** Sign-in (above the token gate), sign-out and the session of the portal. */
export const sessionEndpoints = [
  endpoint({
    surface: 'portal',
    auth: 'none',
    method: 'post',
    path: '/api/portal/login',
    summary: 'Sign in as an owner or admin of a portal-enabled workspace',
    description:
      'Every refusal reads "These credentials do not match our records.". Shares the login lockout (5 failures for one email in 15 minutes lock it for 15 minutes) with the agent login. The route limit counts before validation.',
    limit: { name: 'portal-login', points: 10, seconds: 60, by: 'ip' },
    body: { schema: credentialsBody, examples: [{ email: 'owner@example.com', password: 'correct horse battery staple' }] },
    responses: {
      200: { description: 'A `portal` token (30 days) and who it belongs to.', json: z.object({ token: z.string(), user: portalUser, company: portalCompany, brand }) },
      401: 'Wrong password or unknown address.',
      403: 'Right password, but the portal is off, the workspace or user is suspended, or the role is not owner/admin (worded like a wrong password).',
      429: 'Route limit, or the address is locked out (`Retry-After`).',
    },
    handler: async ({ ctx, body }, _req, res) => {
      const { email, password } = body();
      const user = await signIn(ctx.lockout, email, password, admitToPortal);
      const { plain } = await issueToken(user, 'portal', { name: 'portal' });
      res.json({ token: plain, user: presentPortalUser(user), company: presentPortalCompany(user.company), brand: brandOf(user.company, ctx.config.appUrl) });
    },
  }),
  endpoint({
    ...portal,
    method: 'post',
    path: '/api/portal/logout',
    summary: 'Revoke the calling token',
    responses: { 200: { description: 'Signed out.', json: messageBody } },
    handler: async (_input, req, res) => {
      await revokeToken(authOf(req).token.id);
      res.json({ message: 'Signed out.' });
    },
  }),
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/me',
    summary: 'The signed-in user, workspace, brand, plan limits and this month’s usage',
    responses: { 200: { description: 'The session.', json: z.object({ user: portalUser, company: portalCompany, brand, limits: portalLimits, usage: portalUsage }) } },
    handler: async ({ ctx }, req, res) => {
      const { user, company } = authOf(req);
      const [allowance, chatbots] = await Promise.all([allowanceOf(company), countChatbots(company.id)]);
      res.json({
        user: presentPortalUser(user),
        company: presentPortalCompany(company),
        brand: brandOf(company, ctx.config.appUrl),
        limits: presentPortalLimits(company),
        usage: presentPortalUsage(allowance, chatbots),
      });
    },
  }),
];
