import { Router } from 'express';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { broadcastingRoutes } from './broadcasting';

/** Agent app API (SPEC.md): inbox apps, opened by `agent` tokens only. */
export function agentSurface(ctx: AppContext): Router {
  const router = Router();
  // Routes that must work without a valid token (login, and refresh with its own limiter) go here, above the gate.
  router.use(authenticate('agent'));
  router.use(broadcastingRoutes(ctx));
  return router;
}
