import type { Redis } from 'ioredis';

// Each script compares the holder before touching the key, so a node can only extend or drop its own lease.
const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

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

/**
 * Shard leases in Redis: a key per shard holding its owner (`nodeId:incarnation`) with a TTL. A shard
 * is served only while its lease is held; all of a node's leases renew in one script call.
 */
export class ShardLeases {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly owner: string,
    readonly ttlMs: number,
  ) {}

  key(shard: number): string {
    return `${this.prefix}lease:${shard}`;
  }

  /** True when this node now holds the lease (newly or again). */
  async acquire(shard: number): Promise<boolean> {
    return (await this.redis.eval(ACQUIRE, 1, this.key(shard), this.owner, this.ttlMs)) === 1;
  }

  /** Extends every lease this node still holds; returns the shards renewed (the others were lost). */
  async renew(shards: readonly number[]): Promise<number[]> {
    if (!shards.length) return [];
    const indexes = (await this.redis.eval(RENEW_ALL, shards.length, ...shards.map((s) => this.key(s)), this.owner, this.ttlMs)) as number[];
    return indexes.map((i) => shards[i - 1]!);
  }

  /** Drops this node's leases at once (graceful stop), so new owners need not wait out the TTL. */
  async release(shards: readonly number[]): Promise<number> {
    if (!shards.length) return 0;
    return (await this.redis.eval(RELEASE_ALL, shards.length, ...shards.map((s) => this.key(s)), this.owner)) as number;
  }

  async holder(shard: number): Promise<string | null> {
    return this.redis.get(this.key(shard));
  }
}
