import type { Redis } from 'ioredis';
import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { tooManyRequests } from '../errors';

export interface LimiterOptions {
  /** Distinguishes one limit's counters from another's. */
  name: string;
  points: number;
  /** Window in seconds. */
  duration: number;
}

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

export type LimitKey = 'ip' | 'user';

/** Route limit: per IP on public routes, per signed-in user on authenticated ones. Sets the X-RateLimit headers. */
export function rateLimit(limiters: LimiterFactory, options: LimiterOptions & { by: LimitKey }): RequestHandler {
  const limiter = limiters(options);
  return async (req, res, next) => {
    const key = options.by === 'user' && req.auth ? `user:${req.auth.user.id}` : `ip:${req.ip ?? 'unknown'}`;
    res.setHeader('X-RateLimit-Limit', String(options.points));
    try {
      const result = await limiter.consume(key);
      res.setHeader('X-RateLimit-Remaining', String(result.remainingPoints));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res.setHeader('X-RateLimit-Remaining', '0');
      throw tooManyRequests(rejection.msBeforeNext / 1000);
    }
    next();
  };
}
