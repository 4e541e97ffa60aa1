import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Batched } from '../db/batched';
import type { LimiterOptions } from './limiters';

/** One request's point, spent or refused, with what the X-RateLimit headers and Retry-After say. */
export interface Spent {
  allowed: boolean;
  /** Points left in the window as this node knows them (exact on one node, see `reservedLimiter`). */
  remaining: number;
  msBeforeNext: number;
}

/** A route limit that answers from this node's memory when it can: a `Spent` at once, or a promise of one. */
export interface ReservedLimiter {
  spend(key: string): Spent | Promise<Spent>;
}

export interface ReservedLimiterOptions extends LimiterOptions {
  /** Points a node takes from Redis at a time (1: one Redis call per request, exact across nodes). */
  reserve: number;
}

/**
 * For each key, takes up to ARGV[1] points of the window's ARGV[2], creating the window (ARGV[3]
 * seconds) on first use: the same key, counter and expiry as rate-limiter-flexible's RateLimiterRedis,
 * so a limit spent here and through the generic stack's limiter (a request that fell back to it) is
 * one budget. Returns, per key in order, the points granted (0 once the window's are all taken), the
 * counter after, and its TTL in ms. Several keys at once: the new addresses of one event-loop turn
 * (every new visitor's first beat reserves) share one round trip.
 */
const RESERVE_SCRIPT = `local out = {}
for _, key in ipairs(KEYS) do
  redis.call('set', key, 0, 'EX', ARGV[3], 'NX')
  local taken = tonumber(redis.call('get', key))
  local grant = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - taken)
  if grant > 0 then taken = redis.call('incrby', key, grant) else grant = 0 end
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, ARGV[3])
    ttl = 1000 * ARGV[3]
  end
  out[#out + 1] = grant
  out[#out + 1] = taken
  out[#out + 1] = ttl
end
return out`;

/** The keys' count first (the script takes any number), then the keys, then ARGV. */
type ReservingRedis = Redis & { parleyReservePointsOf(count: number, ...keysThenArgs: string[]): Promise<number[]> };

/** The most keys in one script call: a flood of new addresses is still answered in short steps. */
const MAX_KEYS_PER_CALL = 200;

/** One key's window as this node holds it. */
interface Reserve {
  /** Points this node took from Redis and has not spent yet. */
  left: number;
  /** The window's counter in Redis after this node's last reservation (every node's takings). */
  taken: number;
  /** When the window ends, by this node's clock (Date.now()); reserves die with it. */
  endsAt: number;
  /** A reservation in flight, which other requests for the key wait for instead of sending their own. */
  pending?: Promise<void>;
}

/**
 * A route limit whose counter lives in Redis (shared by every node) but that does not ask Redis on
 * every request: a node takes up to `reserve` points of a key's window at a time and spends them
 * from memory, going back to Redis once they are spent. Never more than `points` requests per key
 * and window get through across all nodes (Redis hands out each point once); a client may be refused
 * up to `nodes x (reserve - 1)` points early, while other nodes still hold points of its window
 * they have not spent. On one node the limit and the remaining count are exact. A key found spent is
 * remembered as spent until its window ends (route limits never give points back). Without Redis, or
 * while it is not ready or a reservation fails, the node falls back to its own in-memory counter, as
 * the generic limiter does. Why: docs/performance.md, "Heartbeat CPU, fourth round".
 */
export function reservedLimiter(redis: Redis | undefined, prefix: string, options: ReservedLimiterOptions): ReservedLimiter {
  const memory = new RateLimiterMemory({ keyPrefix: options.name, points: options.points, duration: options.duration });
  const fromMemory = (key: string): Promise<Spent> =>
    memory.consume(key).then(
      (res) => ({ allowed: true, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext }),
      (rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) return { allowed: false, remaining: 0, msBeforeNext: rejection.msBeforeNext };
        throw rejection;
      },
    );
  if (!redis) return { spend: fromMemory };
  const store = redis as ReservingRedis;
  if (typeof store.parleyReservePointsOf !== 'function') store.defineCommand('parleyReservePointsOf', { lua: RESERVE_SCRIPT });

  const keyPrefix = `${prefix}rl:${options.name}:`;
  const reserve = String(Math.max(1, Math.floor(options.reserve)));
  const points = String(options.points);
  const seconds = String(options.duration);
  const reserves = new Map<string, Reserve>();
  let sweepAt = 0;

  /** Spends a point from memory, or says what the window is known to allow; undefined: ask Redis. */
  const fromReserve = (entry: Reserve | undefined, now: number): Spent | undefined => {
    if (!entry || entry.endsAt <= now) return undefined;
    if (entry.left > 0) {
      entry.left--;
      return { allowed: true, remaining: options.points - entry.taken + entry.left, msBeforeNext: entry.endsAt - now };
    }
    // Every point of the window is taken (by some node): refused until it ends, without asking again.
    if (entry.taken >= options.points) return { allowed: false, remaining: 0, msBeforeNext: entry.endsAt - now };
    return undefined;
  };

  /**
   * Reservations asked for in one event-loop turn go in one script call (src/db/batched.ts: at the end
   * of the turn while none runs, else together after the one running); a lone one as soon as before.
   */
  const reservations = new Batched<string, [number, number, number]>(
    async (keys) => {
      const flat = await store.parleyReservePointsOf(keys.length, ...keys.map((key) => keyPrefix + key), reserve, points, seconds);
      return keys.map((_, i) => [Number(flat[3 * i]), Number(flat[3 * i + 1]), Number(flat[3 * i + 2])]);
    },
    { inFlight: 1, maxBatch: MAX_KEYS_PER_CALL },
  );

  const reserveFor = (key: string, entry: Reserve): Promise<void> => {
    // The window is measured from before the command is sent, so this node's idea of its end is never after Redis's.
    const sentAt = Date.now();
    return reservations.call(key).then(([grant, taken, ttl]) => {
      entry.left += grant;
      entry.taken = taken;
      entry.endsAt = sentAt + ttl;
    });
  };

  const viaRedis = async (key: string): Promise<Spent> => {
    for (;;) {
      const now = Date.now();
      let entry = reserves.get(key);
      const spent = fromReserve(entry, now);
      if (spent) return spent;
      if (entry?.pending) {
        await entry.pending.catch(() => undefined);
        continue;
      }
      if (store.status !== 'ready') return fromMemory(key);
      if (!entry || entry.endsAt <= now) {
        sweep(now);
        entry = { left: 0, taken: 0, endsAt: now };
        reserves.set(key, entry);
      }
      const reserving = entry;
      reserving.pending = reserveFor(key, reserving);
      try {
        await reserving.pending;
      } catch {
        if (reserves.get(key) === reserving) reserves.delete(key);
        return fromMemory(key);
      } finally {
        reserving.pending = undefined;
      }
      // The request that reserved spends first (even if the window ended meanwhile: its point was granted in it).
      const msBeforeNext = Math.max(0, reserving.endsAt - Date.now());
      if (reserving.left === 0) return { allowed: false, remaining: 0, msBeforeNext };
      reserving.left--;
      return { allowed: true, remaining: options.points - reserving.taken + reserving.left, msBeforeNext };
    }
  };

  /** Windows that ended are forgotten, at most once a window's length, so a flood of addresses does not grow memory for long. */
  const sweep = (now: number) => {
    if (now < sweepAt) return;
    sweepAt = now + options.duration * 1000;
    for (const [key, entry] of reserves) if (entry.endsAt <= now && !entry.pending) reserves.delete(key);
  };

  return {
    spend: (key) => fromReserve(reserves.get(key), Date.now()) ?? viaRedis(key),
  };
}
