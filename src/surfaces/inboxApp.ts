import { Router } from 'express';

/** Placeholder: the web inbox at /inbox (issue 7), filled in by its own change. */
export function inboxAppRoutes(): Router {
  return Router();
}
