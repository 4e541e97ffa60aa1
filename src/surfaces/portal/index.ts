import { Router } from 'express';
import type { AppContext } from '../../context';
import { authenticate } from '../../http/authenticate';
import { keyRoutes } from './keys';

/** Portal API (SPEC.md): white-label portals, opened by `portal` tokens only. */
export function portalSurface(ctx: AppContext): Router {
  const router = Router();
  // Login (no token, its own limiter) goes here, above the gate.
  router.use(authenticate('portal'));
  router.use(keyRoutes(ctx));
  return router;
}
