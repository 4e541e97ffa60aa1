import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { createLogger } from '../../src/logger';
import { errorHandler, routeNotFound } from '../../src/http/errorHandler';

/**
 * A real HTTP server around one piece of shared HTTP machinery (a limiter, the error serializer), for
 * behaviour the product surfaces do not reach yet. Returns its base URL and a close function.
 */
export async function serveMiniApp(mount: (app: Express) => void): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(pinoHttp({ logger: createLogger('silent') }));
  app.use(express.json());
  mount(app);
  app.use(routeNotFound);
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
