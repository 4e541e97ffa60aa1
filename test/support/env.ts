import { randomBytes } from 'node:crypto';

/** Where the test run finds Postgres and Redis (the CI machine's defaults unless overridden). */
export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
export const TEST_DATABASE = `parley_test_${runId}`;
export const TEST_REDIS_PREFIX = `parley-test-${runId}:`;

/** The address of database `name` on the tests' server. */
export function databaseUrlOf(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export const TEST_DATABASE_URL = databaseUrlOf(TEST_DATABASE);

/** The environment a Parley process gets in tests: the run's own database, Redis key prefix and key. */
export const TEST_ENV: Record<string, string> = {
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL,
  REDIS_PREFIX: TEST_REDIS_PREFIX,
  APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
  APP_URL: 'http://parley.test',
  // Fast cluster timings for the processes tests start and kill: joins, deaths and lease lapses in
  // seconds, not tens of seconds. The shared test server runs longer ones (SHARED_SERVER_TIMINGS).
  CLUSTER_HEARTBEAT_MS: '500',
  CLUSTER_LEASE_TTL_MS: '3000',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  // Push tests deliver to a stand-in on 127.0.0.1 (test/support/fakePushService.ts); the crawler still refuses private addresses.
  OUTBOUND_ALLOW_PRIVATE: '1',
  // Webhook tests deliver to receivers on 127.0.0.1 (test/support/webhookReceiver.ts); the SSRF test turns it off for its own context.
  WEBHOOK_ALLOW_PRIVATE: '1',
  // /metrics answers non-loopback clients that present it (test/integration/metrics.test.ts).
  METRICS_TOKEN: `metrics-${randomBytes(12).toString('hex')}`,
};

/**
 * The shared in-process test server's cluster timings: a lease that outlasts the event-loop stalls of a
 * loaded machine (a 3 s lease lapsed there, failing turns with owner_lost and turn_timeout). Its
 * failover stays fast where tests kill processes: a killed node is found by its presence connection,
 * not by its lease. Processes with TEST_ENV's short timings share its cluster safely, since each
 * member is judged by the deadline and grace it declares (docs/cluster.md, Timings).
 */
export const SHARED_SERVER_TIMINGS: Record<string, string> = {
  CLUSTER_HEARTBEAT_MS: '2000',
  CLUSTER_LEASE_TTL_MS: '15000',
};
