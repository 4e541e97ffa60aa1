import { Router } from 'express';
import { smallJsonBody } from '../../http/jsonBody';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { assistRoutes } from './assist';
import { broadcastingRoutes } from './broadcasting';
import { catalogueRoutes } from './catalogue';
import { conversationRoutes } from './conversations';
import { customerContextRoutes } from './customerContext';
import { inboxRoutes } from './inbox';
import { pushRoutes } from './push';
import { loginRoutes, sessionRoutes } from './session';
import { visitorRoutes } from './visitors';

/** Agent app API: inbox apps, opened by `agent` tokens only. */
export function agentSurface(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  router.use(loginRoutes(ctx));
  router.use(authenticate('agent'));
  router.use(smallJsonBody);
  router.use(sessionRoutes(ctx));
  router.use(broadcastingRoutes(ctx));
  router.use(inboxRoutes(ctx, actors));
  router.use(conversationRoutes(actors));
  router.use(visitorRoutes(ctx, actors));
  router.use(catalogueRoutes(ctx));
  router.use(customerContextRoutes(ctx, actors));
  router.use(assistRoutes(ctx, actors));
  router.use(pushRoutes(ctx));
  return router;
}
