import { Router } from 'express';
import type { AppContext } from '../../context';

/** Placeholder: filled in by issue 7. */
export function assistRoutes(_ctx: AppContext): Router {
  return Router();
}
