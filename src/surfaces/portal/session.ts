import { Router } from 'express';
import type { AppContext } from '../../context';
import { brandOf } from '../../domain/accounts/brand';
import { signIn, WRONG_CREDENTIALS, type Admission } from '../../domain/accounts/signIn';
import { issueToken, revokeToken } from '../../domain/accounts/tokens';
import { countChatbots } from '../../domain/chatbots/findChatbot';
import { allowanceOf } from '../../domain/usage/allowance';
import { authOf } from '../../http/authenticate';
import { credentialsBody } from '../../http/credentials';
import { smallJsonBody } from '../../http/jsonBody';
import { rateLimit } from '../../http/rateLimit';
import { parse } from '../../http/validate';
import { presentPortalCompany, presentPortalLimits, presentPortalUsage, presentPortalUser } from '../../presenters/account';
import { roleCan } from '../../../config/roles';

/** Owners and admins of a live workspace with the portal on; every refusal reads like a wrong password. */
const admitToPortal: Admission = (user) => {
  const admitted = !user.suspendedAt && !user.company.suspendedAt && user.company.portalEnabled && roleCan(user.role, 'manage-workspace');
  return admitted ? undefined : WRONG_CREDENTIALS;
};

/** Sign-in (above the token gate) for the portal. */
export function loginRoutes(ctx: AppContext): Router {
  return Router().post('/login', rateLimit(ctx.limiters, { name: 'portal-login', points: 10, duration: 60, by: 'ip' }), smallJsonBody, async (req, res) => {
    const { email, password } = parse(credentialsBody, req.body);
    const user = await signIn(ctx.lockout, email, password, admitToPortal);
    const { plain } = await issueToken(user, 'portal', { name: 'portal' });
    res.json({ token: plain, user: presentPortalUser(user), company: presentPortalCompany(user.company), brand: brandOf(user.company, ctx.config.appUrl) });
  });
}

export function sessionRoutes(ctx: AppContext): Router {
  const router = Router();

  router.post('/logout', async (req, res) => {
    await revokeToken(authOf(req).token.id);
    res.json({ message: 'Signed out.' });
  });

  router.get('/me', async (req, res) => {
    const { user, company } = authOf(req);
    const [allowance, chatbots] = await Promise.all([allowanceOf(company), countChatbots(company.id)]);
    res.json({
      user: presentPortalUser(user),
      company: presentPortalCompany(company),
      brand: brandOf(company, ctx.config.appUrl),
      limits: presentPortalLimits(company),
      usage: presentPortalUsage(allowance, chatbots),
    });
  });

  return router;
}
