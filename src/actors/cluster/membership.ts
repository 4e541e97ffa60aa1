import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterTiming } from './timing';

/**
 * Who is alive. `change` fires when the live list changes; `lost` when this node must stop its actors
 * (Redis unreachable for longer than a member may miss beats, or the others removed it as dead).
 */
export interface Membership extends EventEmitter<{ change: []; lost: [reason: string] }> {
  readonly self: string;
  /** Live members, sorted, this node included once it has joined. */
  live(): readonly string[];
  isLive(member: string): boolean;
  /** Joined and past the join window: placement may start. */
  readonly settled: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

// One round trip per beat, on Redis's clock: refresh our score (or join), prune the dead, read the rest.
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mode = ARGV[3]
local present = redis.call('ZSCORE', KEYS[1], ARGV[1])
if mode == 'join' or (mode == 'beat' and present) then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local alive = 1
if mode == 'beat' and not present then alive = 0 end
return {alive, redis.call('ZRANGE', KEYS[1], 0, -1)}`;

type Mode = 'join' | 'beat' | 'observe';

/**
 * Membership in a Redis sorted set scored by each member's last heartbeat. `observer` mode reads the
 * live list without joining (worker processes and test clients that only send messages).
 */
export class RedisMembership extends EventEmitter<{ change: []; lost: [reason: string] }> implements Membership {
  private members: readonly string[] = [];
  private mode: Mode;
  private joinedAt: number | undefined;
  private lastBeatOk = performance.now();
  private beating = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly self: string,
    private readonly timing: ClusterTiming,
    private readonly logger: Logger,
    observer = false,
  ) {
    super();
    this.mode = observer ? 'observe' : 'join';
  }

  get settled(): boolean {
    return this.joinedAt !== undefined && performance.now() - this.joinedAt >= this.timing.joinWindowMs;
  }

  live(): readonly string[] {
    return this.members;
  }

  isLive(member: string): boolean {
    return this.members.includes(member);
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => this.onTick(), this.timing.heartbeatMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.mode === 'observe') return;
    this.mode = 'observe';
    // Leaving explicitly lets the others re-place our shards at their next beat instead of 3 beats later.
    await this.redis.zrem(this.key, this.self).catch(() => undefined);
  }

  private onTick(): void {
    if (this.mode !== 'observe' && this.joinedAt !== undefined && performance.now() - this.lastBeatOk > this.timing.deadAfterMs) {
      this.lose('Redis unreachable for longer than a member may miss heartbeats');
    }
    if (!this.beating) void this.beat();
  }

  private async beat(): Promise<void> {
    this.beating = true;
    const mode = this.mode;
    try {
      const [alive, members] = (await this.redis.eval(BEAT, 1, this.key, this.self, this.timing.deadAfterMs, mode)) as [number, string[]];
      this.lastBeatOk = performance.now();
      if (mode === 'beat' && alive === 0) {
        this.lose('removed from the cluster by the others (missed heartbeats)');
        return;
      }
      if (mode === 'join') {
        this.mode = 'beat';
        this.joinedAt = performance.now();
        this.logger.info({ node: this.self, members: members.length }, 'joined the cluster');
      }
      this.update(members);
    } catch (error) {
      this.logger.warn({ err: error }, 'cluster heartbeat failed');
    } finally {
      this.beating = false;
    }
  }

  private update(members: string[]): void {
    const sorted = members.sort();
    if (sorted.length === this.members.length && sorted.every((m, i) => m === this.members[i])) return;
    this.members = sorted;
    this.emit('change');
  }

  private lose(reason: string): void {
    if (this.joinedAt === undefined) return;
    this.logger.error({ node: this.self, reason }, 'lost cluster membership: stopping this node\'s actors');
    this.joinedAt = undefined;
    this.mode = 'join';
    this.members = [];
    this.emit('lost', reason);
  }
}

/** Single-node mode: the only member is this process. */
export class LocalMembership extends EventEmitter<{ change: []; lost: [reason: string] }> implements Membership {
  readonly settled = true;
  private readonly members: readonly string[];

  constructor(readonly self: string) {
    super();
    this.members = [self];
  }

  live(): readonly string[] {
    return this.members;
  }

  isLive(member: string): boolean {
    return member === this.self;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}
