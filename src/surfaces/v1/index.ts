import { Router } from 'express';
import { smallJsonBody } from '../../http/jsonBody';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { chatbotRoutes } from './chatbots';
import { conversationRoutes } from './conversations';
import { knowledgeRoutes } from './knowledge';
import { meRoutes } from './me';
import { messageRoutes } from './messages';

/** REST API v1: integrators' surface, opened by `api` tokens only. */
export function v1Surface(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  router.use(authenticate('api'));
  // Before the small default parser: knowledge uploads parse their large bodies themselves, after the ability check.
  router.use(knowledgeRoutes(ctx));
  router.use(smallJsonBody);
  router.use(meRoutes());
  router.use(chatbotRoutes());
  router.use(conversationRoutes(ctx));
  router.use(messageRoutes(actors));
  return router;
}
