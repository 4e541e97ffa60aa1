import { Router, type RequestHandler } from 'express';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { configRoutes } from './config';
import { conversationRoutes } from './conversation';
import { heartbeatRoutes } from './heartbeat';
import { streamRoutes } from './stream';

/**
 * Widget endpoints (SPEC.md, DECISIONS.md): public, no token, called from visitors' browsers on
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
 * Any site may embed the widget. No cookies or credentials are used (the visitor id travels in the
 * body), so a wildcard origin exposes nothing; preflights are answered here and cached for a day.
 * Mounted before body parsing, so even a malformed body's 400 carries the header.
 */
export const anyOrigin: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
};
