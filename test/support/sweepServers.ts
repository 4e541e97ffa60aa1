import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { server } from './hooks';

/** Keys in the right shape; nothing is sent to a push service by the routes these tests call. */
const VAPID = {
  publicKey: 'BKX_b7nQkjC5r7Ogn6cxSiRwz_xfkOLRzoo_-9v3v0SWcIH8wf2HAPTUZWUwG--a9SzXEmuwv05kcKZlSr9T0tQ',
  privateKey: 'not-used-by-these-routes',
  subject: 'mailto:ops@parley.test',
};

/** What single-node mode adds: the demo page at `/` (the shared test server runs in cluster mode). */
const DEMO = { publicKey: 'pk_demo000000000000000000000', name: 'Demo' };

/**
 * The whole app, exactly as the test server builds it (same context, database, Redis and actors),
 * on a second port with web push configured and the single-node demo page: the shared server has no
 * VAPID keys, so its push subscription route answers 503 before reading the body.
 */
export async function serveWithPush(): Promise<{ url: string; close(): Promise<void> }> {
  const app = fullApp();
  const listening = app.listen(0, '127.0.0.1');
  await once(listening, 'listening');
  return {
    url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
}

/** The app with every optional route (push configured, the demo page), for walking its routes. */
export function fullApp() {
  const ctx = server().ctx;
  return createApp({ ...ctx, config: { ...ctx.config, vapid: VAPID } }, { actors: server().actors, watchers: server().watchers, demo: DEMO });
}
