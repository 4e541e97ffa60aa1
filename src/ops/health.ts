import { Router } from 'express';
import type { ReadinessCheck } from '../readiness';

const CHECK_TIMEOUT_MS = 2000;

/** /healthz: the process answers. /readyz: every dependency answers, or 503 naming the ones that do not. */
export function healthRoutes(readiness: ReadinessCheck[]): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(readiness.map(async ({ name, check }) => [name, await outcome(check)] as const));
    const failing = results.filter(([, result]) => result !== 'ok').map(([name]) => name);
    const checks = Object.fromEntries(results);
    if (failing.length) {
      res.status(503).json({ message: `Not ready: ${failing.join(', ')} unavailable.`, status: 'unavailable', checks });
    } else {
      res.json({ status: 'ready', checks });
    }
  });
  return router;
}

async function outcome(check: () => Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : 'failed';
  } finally {
    clearTimeout(timer);
  }
}
