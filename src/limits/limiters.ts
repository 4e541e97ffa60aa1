import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimiterOptions {
  /** Distinguishes one limit's counters from another's. */
  name: string;
  points: number;
  /** Window in seconds. */
  duration: number;
}

/** Counters for route limits (src/http/rateLimit.ts) and the login lockout alike, so it sits below both. */
export type LimiterFactory = (options: LimiterOptions) => RateLimiterAbstract;

/**
 * Counters live in Redis in cluster mode (shared by every node) and in memory in single-node mode.
 * A Redis blip falls back to an in-memory limiter instead of failing requests.
 */
export function limiterFactory(redis: Redis | undefined, prefix: string): LimiterFactory {
  return ({ name, points, duration }) => {
    const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
    if (!redis) return memory;
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:${name}`,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  };
}
