import ipaddr from 'ipaddr.js';
import type { RequestHandler } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../errors';
import type { LimiterFactory, LimiterOptions } from '../limits/limiters';

export type LimitKey = 'ip' | 'user';

/** Route limit: per IP on public routes, per signed-in user on authenticated ones. Sets the X-RateLimit headers. */
export function rateLimit(limiters: LimiterFactory, options: LimiterOptions & { by: LimitKey }): RequestHandler {
  const limiter = limiters(options);
  return async (req, res, next) => {
    const key = options.by === 'user' && req.auth ? `user:${req.auth.user.id}` : `ip:${ipLimitKey(req.ip)}`;
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

/**
 * The per-IP counter a client address spends: IPv4 (and IPv4-mapped IPv6) by the address, IPv6 by its
 * /64. One subscriber usually gets a whole /64, so keying by full address would give one client 2^64
 * budgets. Anything unparsable is kept as is (it still gets a counter of its own).
 */
export function ipLimitKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return ip;
  const address = ipaddr.process(bare);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = new ipaddr.IPv6([...(address as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}
