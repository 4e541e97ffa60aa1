import { Router } from 'express';
import type { AppContext } from '../../context';

/** Placeholder: filled in by issue 7. */
export function catalogueRoutes(_ctx: AppContext): Router {
  return Router();
}
