import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { GONE_LUA, type Presence } from './presence';
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
  /** performance.now() until which this node may act on its shards (its presence is vouched for). */
  vouchedUntil(): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

// One round trip, on Redis's clock: register our presence life and refresh our deadline (or join),
// prune members past their own deadline or whose presence connection is gone, read the rest. Scores
// are each member's own deadline (now + its dead-after), so members with other timings are judged
// by theirs.
const BEAT = `${GONE_LUA}
local now = redisNow()
local self, mode, prefix, life = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local present = redis.call('ZSCORE', KEYS[1], self)
if mode == 'join' or (mode == 'beat' and present) then
  if life ~= '' then
    -- Lives only move forward: a late beat of an older life must not hide the newer one.
    local registration = prefix .. 'presence:' .. self
    local registered = redis.call('GET', registration)
    local registeredLife = registered and tonumber(string.match(registered, '^(%d+)')) or 0
    if tonumber(life) >= registeredLife then redis.call('SET', registration, life .. ' ' .. ARGV[6], 'PX', ARGV[7]) end
  end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), self)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if gone(prefix, member, now, tonumber(ARGV[7])) then redis.call('ZREM', KEYS[1], member) end
end
local alive = 1
if mode ~= 'observe' and not redis.call('ZSCORE', KEYS[1], self) then alive = 0 end
return {alive, redis.call('ZRANGE', KEYS[1], 0, -1)}`;

type Mode = 'join' | 'beat' | 'watch' | 'observe';

/**
 * Membership in a Redis sorted set scored by each member's deadline. Members run the script every
 * `checkMs` (refreshing their deadline every heartbeat), so a member whose presence connection closed
 * leaves the live list within about that. Without a presence (`observer` mode: worker processes and
 * test clients that only send messages) it reads the live list without joining.
 */
export class RedisMembership extends EventEmitter<{ change: []; lost: [reason: string] }> implements Membership {
  private members: readonly string[] = [];
  private mode: Mode;
  private joinedAt: number | undefined;
  private lastBeatOk = performance.now();
  private lastBeatSent = Number.NEGATIVE_INFINITY;
  private beating = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly self: string,
    private readonly timing: ClusterTiming,
    private readonly logger: Logger,
    /** This node's presence connection; absent for observers. */
    private readonly presence?: Presence,
  ) {
    super();
    this.mode = presence ? 'join' : 'observe';
    presence?.on('lost', (reason) => this.lose(reason));
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

  vouchedUntil(): number {
    return this.presence ? this.presence.vouchedUntil() : Number.POSITIVE_INFINITY;
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => this.onTick(), this.timing.checkMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.mode === 'observe') return;
    this.mode = 'observe';
    // Leaving explicitly lets the others re-place our shards at once. The presence connection stays
    // open until the process has released its leases (ActorSystem.close), so nobody takes them early.
    await this.redis.zrem(`${this.prefix}members`, this.self).catch(() => undefined);
  }

  private onTick(): void {
    if (this.mode !== 'observe' && this.joinedAt !== undefined && performance.now() - this.lastBeatOk > this.timing.deadAfterMs) {
      this.lose('Redis unreachable for longer than a member may miss heartbeats');
    }
    if (!this.beating) void this.beat();
  }

  private async beat(): Promise<void> {
    this.beating = true;
    let mode = this.mode;
    if (mode === 'beat' && performance.now() - this.lastBeatSent < this.timing.heartbeatMs) mode = 'watch';
    try {
      const life = mode === 'observe' || !this.presence ? undefined : await this.presence.open();
      if (mode === 'join' || mode === 'beat') this.lastBeatSent = performance.now();
      const registrationMs = 2 * Math.max(this.timing.deadAfterMs, this.timing.leaseTtlMs);
      const [alive, members] = (await this.redis.eval(
        BEAT,
        1,
        `${this.prefix}members`,
        this.self,
        this.timing.deadAfterMs,
        mode,
        this.prefix,
        life ?? '',
        this.timing.goneGraceMs,
        registrationMs,
      )) as [number, string[]];
      this.lastBeatOk = performance.now();
      if (mode !== 'observe' && alive === 0) {
        this.lose(mode === 'join' ? 'its presence connection closed while joining' : 'removed from the cluster by the others (missed heartbeats or its presence connection closed)');
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
    // A new life for the next join: the others may have found this one gone already.
    this.presence?.reset();
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

  vouchedUntil(): number {
    return Number.POSITIVE_INFINITY;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}
