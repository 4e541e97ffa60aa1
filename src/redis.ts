import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** One ioredis connection for commands. Errors are logged (throttled) rather than crashing the node. */
export async function connectRedis(url: string, logger: Logger, name = 'main'): Promise<Redis> {
  const redis = new Redis(url, {
    connectionName: `parley:${name}`,
    maxRetriesPerRequest: 3,
    lazyConnect: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastLogged = 0;
  redis.on('error', (error) => {
    if (Date.now() - lastLogged < 5000) return;
    lastLogged = Date.now();
    logger.warn({ err: error, redis: name }, 'redis connection error');
  });
  await redis.connect();
  return redis;
}
