import { Router } from 'express';
import { smallJsonBody } from '../../http/jsonBody';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { chatbotRoutes } from './chatbots';
import { keyRoutes } from './keys';
import { knowledgeRoutes } from './knowledge';
import { loginRoutes, sessionRoutes } from './session';
import { workspaceRoutes } from './workspace';

/** Portal API: white-label portals, opened by `portal` tokens only. */
export function portalSurface(ctx: AppContext): Router {
  const router = Router();
  router.use(loginRoutes(ctx));
  router.use(authenticate('portal'));
  // Before the small default parser: knowledge uploads parse their large bodies themselves, after the ability check.
  router.use(knowledgeRoutes(ctx));
  router.use(smallJsonBody);
  router.use(sessionRoutes(ctx));
  router.use(chatbotRoutes());
  router.use(keyRoutes(ctx));
  router.use(workspaceRoutes(ctx));
  return router;
}
