import { join } from 'node:path';
import { Router } from 'express';
import { DEFAULT_LOGO_PATH } from '../domain/accounts/brand';

/** Where the browser-side files live: `client/` at the project root (beside `dist/`). */
export const CLIENT_DIR = join(__dirname, '..', '..', '..', 'client');

/** Static files browsers load from this server: the default brand logo. */
export function assetRoutes(): Router {
  const router = Router();
  router.get(DEFAULT_LOGO_PATH, (_req, res) => {
    res.sendFile(join(CLIENT_DIR, 'brand', 'logo.svg'), { maxAge: '1d' });
  });
  return router;
}
