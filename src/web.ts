import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/env';
import { createApp } from './app';
import { closeContext, openContext, type AppContext } from './context';

export interface RunningWeb {
  ctx: AppContext;
  server: Server;
  port: number;
  url: string;
  /** Graceful stop: refuse new connections, let in-flight requests finish (bounded), then close pools. */
  stop(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;

/** Boot order: database (and migrations in embedded mode), Redis, HTTP. Used by server.ts and by tests. */
export async function startWeb(config: Readonly<Config>, logger: Logger): Promise<RunningWeb> {
  const ctx = await openContext(config, logger, { migrateEmbedded: true });
  const server = createApp(ctx).listen(config.port);
  try {
    await once(server, 'listening');
  } catch (error) {
    await closeContext(ctx);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  logger.info({ port, mode: config.singleNode ? 'single-node' : 'cluster', embeddedDatabase: config.embeddedDatabase }, 'listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A keep-alive connection turns idle once its in-flight response is sent: close it then, not at its timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      await closeContext(ctx);
      logger.info('stopped');
    })());

  return { ctx, server, port, url: `http://127.0.0.1:${port}`, stop };
}
