import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { throttledWarn } from './logger';

/**
 * One ioredis connection for commands, resolved once Redis answers: a process started while Redis
 * is down waits for it (ioredis keeps reconnecting, at most 2 s apart) instead of exiting, and says
 * so in its log. Errors later on are logged (throttled) rather than crashing the node.
 */
export async function connectRedis(url: string, logger: Logger, name = 'main'): Promise<Redis> {
  const redis = new Redis(url, {
    connectionName: `parley:${name}`,
    maxRetriesPerRequest: 3,
    lazyConnect: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    // Commands issued in the same tick share one write: under load (route limits, fan-out, leases)
    // that is one system call for many commands, the largest single cost of a heartbeat before.
    enableAutoPipelining: true,
  });
  failFastWhileDown(redis);
  const warn = throttledWarn();
  let waitingSince: number | undefined = Date.now();
  let failedAttempts = 0;
  redis.on('error', (error) => {
    if (waitingSince === undefined) return warn(logger, { err: error, redis: name }, 'redis connection error');
    failedAttempts++;
    // No stack: the cause (refused, reset, unknown host) is the news, and it repeats until Redis answers.
    warn(logger, { redis: name, cause: error.message, attempts: failedAttempts, waitingMs: Date.now() - waitingSince }, 'waiting for Redis to answer');
  });
  await untilReady(redis);
  if (failedAttempts) logger.info({ redis: name, attempts: failedAttempts, waitedMs: Date.now() - waitingSince }, 'redis answered');
  waitingSince = undefined;
  return redis;
}

/**
 * Once a reconnect attempt has failed, Redis is down rather than blipping: commands then fail at once
 * instead of queueing until ioredis gives up on them, which it does only every fourth failed attempt
 * (up to 8 s apart at the 2 s retry cap), so a request making two Redis calls during an outage waited
 * past 15 s. Commands issued after a drop, before any attempt failed, still queue and go out on the
 * reconnect, so a blip loses none; the ones queued then are released within four attempts (2 s).
 */
function failFastWhileDown(redis: Redis): void {
  redis.on('error', () => {
    if (redis.status !== 'ready') redis.options.enableOfflineQueue = false;
  });
  redis.on('ready', () => {
    redis.options.enableOfflineQueue = true;
  });
}

/**
 * Connects a lazy connection and resolves once it is ready, however many attempts that takes. Its
 * first failed attempt rejects `connect()`, but ioredis goes on reconnecting under its retry strategy.
 */
export async function untilReady(redis: Redis): Promise<void> {
  const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  redis.connect().catch(() => undefined); // each failed attempt is reported through the 'error' event
  await ready;
}
