import { Router } from 'express';
import type { AppContext } from '../../context';

/** Placeholder: login (above the token gate), filled in by issue 7. */
export function loginRoutes(_ctx: AppContext): Router {
  return Router();
}

/** Placeholder: refresh, me, logout, filled in by issue 7. */
export function sessionRoutes(_ctx: AppContext): Router {
  return Router();
}
