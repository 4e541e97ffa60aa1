import { Router } from 'express';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { assistRoutes } from './assist';
import { broadcastingRoutes } from './broadcasting';
import { catalogueRoutes } from './catalogue';
import { customerContextRoutes } from './customerContext';
import { pushRoutes } from './push';
import { loginRoutes, sessionRoutes } from './session';

/** Agent app API (SPEC.md): inbox apps, opened by `agent` tokens only. */
export function agentSurface(ctx: AppContext): Router {
  const router = Router();
  router.use(loginRoutes(ctx));
  router.use(authenticate('agent'));
  router.use(sessionRoutes(ctx));
  router.use(broadcastingRoutes(ctx));
  router.use(catalogueRoutes(ctx));
  router.use(customerContextRoutes(ctx));
  router.use(assistRoutes(ctx));
  router.use(pushRoutes(ctx));
  return router;
}
