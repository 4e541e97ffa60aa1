import type { Redis } from 'ioredis';
import { GONE_LUA } from './presence';

// Each script compares the holder before touching the key, so a node can only extend or drop its own
// lease, or take one whose holder's presence connection has been gone for the grace that holder declared.
// Returns the indexes taken and, when some holder's grace is still running, the ms until it ends.
const ACQUIRE_ALL = `${GONE_LUA}
local now = redisNow()
local acquired, waitMs, found = {}, -1, {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  local free = holder == false or holder == ARGV[1]
  if not free then
    if found[holder] == nil then found[holder] = gone(ARGV[3], holder, now, tonumber(ARGV[4])) or false end
    local seen = found[holder]
    if seen then
      local left = seen[1] + seen[2] - now
      if left <= 0 then free = true elseif waitMs < 0 or left < waitMs then waitMs = left end
    end
  end
  if free then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    acquired[#acquired + 1] = i
  end
end
return {acquired, waitMs}`;

const RENEW_ALL = `
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    renewed[#renewed + 1] = i
  end
end
return renewed`;

const RELEASE_ALL = `
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released`;

/** Where shard leases live: Redis in cluster mode, this process in single-node mode. */
/** What an acquisition took, and when leases of a member found gone become free (ms from now). */
export interface Acquired {
  shards: number[];
  retryInMs?: number;
}

export interface LeaseStore {
  readonly owner: string;
  /** Takes every free (or already own) lease among `shards`, and those of holders gone past their grace. */
  acquire(shards: readonly number[]): Promise<Acquired>;
  /** Extends every lease this node still holds; returns the shards renewed (the others were lost). */
  renew(shards: readonly number[]): Promise<number[]>;
  /** Drops this node's leases at once (graceful stop), so new owners need not wait out the TTL. */
  release(shards: readonly number[]): Promise<number>;
  holder(shard: number): Promise<string | null>;
}

/**
 * Shard leases in Redis: a key per shard holding its owner (`nodeId:incarnation`) with a TTL. A shard
 * is served only while its lease is held; all of a node's leases renew in one script call.
 */
export class ShardLeases implements LeaseStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly owner: string,
    readonly ttlMs: number,
    /** How long a gone note is kept: past the grace and any lease its member could still hold. */
    private readonly goneKeepMs: number,
  ) {}

  key(shard: number): string {
    return `${this.prefix}lease:${shard}`;
  }

  async acquire(shards: readonly number[]): Promise<Acquired> {
    if (!shards.length) return { shards: [] };
    const keys = shards.map((s) => this.key(s));
    const [indexes, waitMs] = (await this.redis.eval(ACQUIRE_ALL, keys.length, ...keys, this.owner, this.ttlMs, this.prefix, this.goneKeepMs)) as [number[], number];
    return { shards: indexes.map((i) => shards[i - 1]!), ...(waitMs >= 0 ? { retryInMs: waitMs } : {}) };
  }

  async renew(shards: readonly number[]): Promise<number[]> {
    return this.run(RENEW_ALL, shards, this.ttlMs);
  }

  async release(shards: readonly number[]): Promise<number> {
    if (!shards.length) return 0;
    return (await this.redis.eval(RELEASE_ALL, shards.length, ...shards.map((s) => this.key(s)), this.owner)) as number;
  }

  async holder(shard: number): Promise<string | null> {
    return this.redis.get(this.key(shard));
  }

  /** Runs a per-key script and maps the 1-based indexes it returns back to shards. */
  private async run(script: string, shards: readonly number[], ttlMs: number): Promise<number[]> {
    if (!shards.length) return [];
    const indexes = (await this.redis.eval(script, shards.length, ...shards.map((s) => this.key(s)), this.owner, ttlMs)) as number[];
    return indexes.map((i) => shards[i - 1]!);
  }
}

/** Single-node mode: this process is the only node, so every lease is its own. */
export class LocalLeases implements LeaseStore {
  private readonly held = new Set<number>();

  constructor(readonly owner: string) {}

  async acquire(shards: readonly number[]): Promise<Acquired> {
    for (const shard of shards) this.held.add(shard);
    return { shards: [...shards] };
  }

  async renew(shards: readonly number[]): Promise<number[]> {
    return shards.filter((shard) => this.held.has(shard));
  }

  async release(shards: readonly number[]): Promise<number> {
    return shards.filter((shard) => this.held.delete(shard)).length;
  }

  async holder(shard: number): Promise<string | null> {
    return this.held.has(shard) ? this.owner : null;
  }
}
