import type { Redis } from 'ioredis';

// Each script compares the holder before touching the key, so a node can only extend or drop its own lease.
const ACQUIRE_ALL = `
local acquired = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == false or holder == ARGV[1] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    acquired[#acquired + 1] = i
  end
end
return acquired`;

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
export interface LeaseStore {
  readonly owner: string;
  /** Takes every free (or already own) lease among `shards`; returns the shards now held. */
  acquire(shards: readonly number[]): Promise<number[]>;
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
  ) {}

  key(shard: number): string {
    return `${this.prefix}lease:${shard}`;
  }

  async acquire(shards: readonly number[]): Promise<number[]> {
    return this.run(ACQUIRE_ALL, shards, this.ttlMs);
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

  async acquire(shards: readonly number[]): Promise<number[]> {
    for (const shard of shards) this.held.add(shard);
    return [...shards];
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
