import { createShardedAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectRedis, untilReady } from '../redis';

/** How events cross nodes: Redis sharded pub/sub in cluster mode, nothing (Socket.IO's in-memory adapter) on a single node. */
export interface FanOut {
  adapter?: ReturnType<typeof createShardedAdapter>;
  /** Resolves once subscriptions this node asked for (a room it just created) are active in Redis. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export const localFanOut = (): FanOut => ({ settled: async () => {}, close: async () => {} });

/**
 * Two dedicated connections (a subscriber cannot run other commands). The channel prefix carries
 * REDIS_PREFIX so deployments, and test runs, that share a Redis never see each other's events.
 */
export async function redisFanOut(url: string, prefix: string, logger: Logger): Promise<FanOut> {
  const pub = await connectRedis(url, logger, 'io-pub');
  let sub: Redis | undefined;
  try {
    await requireShardedPubSub(pub);
    // A subscription asked for during an outage waits for the reconnect instead of failing after a few retries.
    sub = pub.duplicate({ connectionName: 'parley:io-sub', maxRetriesPerRequest: null });
    sub.on('error', () => undefined); // pub logs the outage; one report per outage is enough
    await untilReady(sub);
  } catch (error) {
    pub.disconnect();
    sub?.disconnect();
    throw error;
  }
  const subscriber = quietSubscriber(sub, logger);
  const connected = sub;
  return {
    adapter: createShardedAdapter(pub, subscriber, { channelPrefix: `${prefix}socket.io` }),
    // Commands on one connection run in order: once a PING is answered, every earlier SSUBSCRIBE is too.
    settled: async () => void (await connected.ping()),
    close: async () => {
      await Promise.all([pub, connected].map((redis) => redis.quit().catch(() => redis.disconnect())));
    },
  };
}

/**
 * What the adapter calls on its subscriber, with failures logged. The adapter fires SSUBSCRIBE and
 * SUNSUBSCRIBE without handling the promise ioredis returns, so a failure (Redis gone at shutdown,
 * a server without sharded pub/sub) would be an unhandled rejection and take the process down.
 */
function quietSubscriber(sub: Redis, logger: Logger) {
  const failed = (error: unknown) => logger.warn({ err: error }, 'realtime subscription command failed');
  return {
    on: (event: string, listener: (...args: Buffer[]) => void) => sub.on(event, listener),
    ssubscribe: (channel: string) => sub.ssubscribe(channel).catch(failed),
    sunsubscribe: (channel: string | string[]) => sub.sunsubscribe(...[channel].flat()).catch(failed),
  };
}

/** Sharded pub/sub (SSUBSCRIBE, SPUBLISH) arrived in Redis 7; fail at start rather than fan out nothing. */
async function requireShardedPubSub(redis: Redis): Promise<void> {
  const info = await redis.info('server');
  const version = /^redis_version:(\d+)/m.exec(info)?.[1];
  if (version && Number(version) < 7) {
    throw new Error(`Realtime fan-out needs Redis 7 or newer (sharded pub/sub); this server is Redis ${version}.`);
  }
}
