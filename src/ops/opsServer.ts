import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { AppContext } from '../context';
import { errorHandler, routeNotFound } from '../http/errorHandler';
import { trustProxySetting } from '../http/trustProxy';
import { healthRoutes } from './health';
import { metricsAccess } from './metricsAccess';

/**
 * The operations endpoints every process answers, under one rule: /healthz, /readyz (the context's
 * dependencies) and /metrics for loopback clients or the METRICS_TOKEN bearer.
 */
export function opsRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(healthRoutes(ctx.readiness));
  router.get('/metrics', metricsAccess(ctx.config.metricsToken), ctx.metrics.serve);
  return router;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/** A process without the web surfaces (the worker) answering its operations endpoints on its own port. */
export async function startOpsServer(ctx: AppContext, port: number): Promise<OpsServer> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(ctx.config.trustProxy));
  // No request lines (probes every few seconds are not news); the error handler logs through req.log.
  app.use(pinoHttp({ logger: ctx.logger, autoLogging: false }));
  app.use(opsRoutes(ctx));
  app.use(routeNotFound);
  app.use(errorHandler);

  const server = createServer(app);
  server.listen(port);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Probes and scrapers keep connections alive; nothing they wait for is worth holding the exit.
        server.closeAllConnections();
      }),
  };
}
