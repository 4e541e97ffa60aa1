import { Redis } from 'ioredis';

/** Where BullMQ keeps its keys: under the deployment's prefix, apart from Parley's own keys. */
export const bullPrefix = (redisPrefix: string): string => `${redisPrefix}bull`;

/**
 * Redis connections for BullMQ queues and workers: their own, with `maxRetriesPerRequest: null` as
 * BullMQ requires. BullMQ leaves connections it was handed open on close(), so they are quit here.
 */
export class BullConnections {
  private readonly open: Redis[] = [];

  constructor(private readonly redisUrl: string) {}

  next(name: string): Redis {
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: null, connectionName: `parley:${name}` });
    redis.on('error', () => undefined); // BullMQ reconnects and reports through its own events
    this.open.push(redis);
    return redis;
  }

  async close(): Promise<void> {
    await Promise.all(this.open.map((redis) => redis.quit().catch(() => redis.disconnect())));
  }
}
