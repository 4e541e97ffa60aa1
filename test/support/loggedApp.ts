import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { server } from './hooks';

export interface LoggedApp {
  url: string;
  /** Every line the app logged so far, parsed (pino JSON: `level` 30 info, 40 warn, 50 error). */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * The whole app as the test server builds it (same context, database, Redis and actors) on a second
 * port, logging at info into memory: for what a request logs, which the silent test server hides.
 */
export async function serveLoggedApp(): Promise<LoggedApp> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const ctx = server().ctx;
  const listening = createApp({ ...ctx, logger }, { actors: server().actors, watchers: server().watchers }).listen(0, '127.0.0.1');
  await once(listening, 'listening');
  return {
    url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    logs,
    close: () =>
      new Promise((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
}
