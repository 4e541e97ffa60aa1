import { Router } from 'express';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { configRoutes } from './config';
import { conversationRoutes, VISITOR_HEADER } from './conversation';
import { heartbeatRoutes } from './heartbeat';
import { streamRoutes } from './stream';
import { openToEveryOrigin } from '../../http/cors';

/**
 * Widget endpoints (docs/api.md "Widget"): public, no token, called from visitors' browsers on
 * customers' sites. The chatbot's public key in the path is the only credential.
 */
export function widgetSurface(ctx: AppContext, actors: Actors): Router {
  const router = Router();
  router.use(configRoutes(ctx));
  router.use(streamRoutes(ctx, actors));
  router.use(conversationRoutes(ctx, actors));
  router.use(heartbeatRoutes(ctx, actors));
  return router;
}

/**
 * Any site may embed the widget; the visitor id travels in the body or, on the state reads, in the
 * X-Visitor-Id header (kept out of URLs and so out of logs), never in a cookie.
 */
export const anyOrigin = openToEveryOrigin({ methods: 'GET, POST, OPTIONS', headers: `Content-Type, ${VISITOR_HEADER}` });
