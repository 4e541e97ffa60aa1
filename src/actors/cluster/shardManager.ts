import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ShardFences } from './fences';
import type { LeaseStore } from './leases';
import type { Membership } from './membership';
import { desiredOwner, SHARD_COUNT } from './shards';
import type { ClusterTiming } from './timing';

interface HeldShard {
  epoch: number;
  /** performance.now() after which the shard is no longer served: last renewal sent + TTL - margin. */
  servesUntil: number;
  /** Being handed to its new desired owner: no new messages, running turns finish. */
  releasing: boolean;
}

/** What the manager needs from the actor host when a shard leaves this node. */
export interface ShardHooks {
  /** Let the shard's running turns finish (bounded), then deactivate its actors. */
  drain(shard: number, boundMs: number): Promise<void>;
  /** Deactivate the shard's actors at once: the lease is gone or fenced. */
  drop(shard: number): Promise<void>;
}

const HANDOFF_DRAIN_MS = 10_000;

/** What placement gives this node and how much of it it serves; `shortForMs` is 0 while it serves all of it. */
export interface ShardShare {
  desired: number;
  served: number;
  shortForMs: number;
}

/**
 * The lease loop: each node takes the shards rendezvous hashing gives it, keeps them by renewing all
 * its leases in one call, stops serving any it could not renew in time, and hands back gradually the
 * shards a joining node should own. Ownership is real only while the lease is held and the epoch bumped.
 */
export class ShardManager {
  private readonly held = new Map<number, HeldShard>();
  private timers: NodeJS.Timeout[] = [];
  private placing = false;
  private placeAgain = false;
  private renewing = false;
  private stopped = false;
  /** A placement timed for when a gone member's leases become free, instead of the next tick. */
  private retryTimer: NodeJS.Timeout | undefined;
  private desiredFor: readonly string[] | undefined;
  private desired = new Set<number>();
  /** performance.now() since when this node has served less than its share; undefined while it serves it all. */
  private shortSince: number | undefined;

  constructor(
    private readonly membership: Membership,
    private readonly leases: LeaseStore,
    private readonly fences: ShardFences,
    private readonly timing: ClusterTiming,
    private readonly hooks: ShardHooks,
    private readonly logger: Logger,
  ) {}

  get self(): string {
    return this.membership.self;
  }

  /** The hot path of every delivery: the epoch this node serves the shard under, if it does right now. */
  servingEpoch(shard: number): number | undefined {
    const held = this.held.get(shard);
    if (!held || held.releasing) return undefined;
    // Past its presence vouch this node pauses (no new turns) without dropping anything: the next
    // answered ping resumes it, unless its connection closed, which drops every shard (membership lost).
    const now = performance.now();
    if (now >= held.servesUntil || now >= this.membership.vouchedUntil()) return undefined;
    return held.epoch;
  }

  ownedShards(): number[] {
    return [...this.held.keys()].filter((shard) => this.servingEpoch(shard) !== undefined);
  }

  /** For readiness: a node fenced out, or whose leases lapsed, serves less than its share until it takes it back. */
  share(): ShardShare {
    this.noteShortfall();
    const desired = this.membership.settled ? this.desiredShards() : new Set<number>();
    const served = [...desired].filter((shard) => this.servingEpoch(shard) !== undefined).length;
    return { desired: desired.size, served, shortForMs: this.shortSince === undefined ? 0 : performance.now() - this.shortSince };
  }

  async start(): Promise<void> {
    // A node that can take its shards at once (single-node mode) must: failing to is a start-up error.
    if (this.membership.settled) await this.take(this.desiredShards());
    this.membership.on('change', () => void this.place());
    this.membership.on('lost', () => void this.dropAll());
    this.timers = [
      setInterval(() => void this.place(), this.timing.tickMs),
      setInterval(() => void this.renew(), this.timing.renewMs),
    ];
  }

  /** A fenced write proved another node owns the shard: stop serving it now. */
  lost(shard: number): void {
    if (!this.held.has(shard)) return;
    this.drop([shard], 'fenced out by a newer epoch');
    void this.place();
  }

  /** Graceful stop: finish turns (bounded), then release every lease so successors need not wait out the TTL. */
  async stop(drainBoundMs: number): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    clearTimeout(this.retryTimer);
    const shards = [...this.held.keys()];
    for (const held of this.held.values()) held.releasing = true;
    await Promise.all(shards.map((shard) => this.hooks.drain(shard, drainBoundMs)));
    this.held.clear();
    await this.leases.release(shards).catch((error: unknown) => this.logger.warn({ err: error }, 'could not release shard leases'));
  }

  private async place(): Promise<void> {
    if (this.placing) {
      this.placeAgain = true;
      return;
    }
    this.placing = true;
    try {
      do {
        this.placeAgain = false;
        this.expire();
        if (this.stopped || !this.membership.settled) return;
        const desired = this.desiredShards();
        this.handBack(desired);
        await this.take(desired);
      } while (this.placeAgain && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, 'shard placement failed; retrying next tick');
    } finally {
      this.placing = false;
      this.noteShortfall();
    }
  }

  /**
   * Starts or ends the current shortfall. Every tick notes it, so its age counts from when it began,
   * not from the first readiness probe. A node that has not settled yet does not know its share: short.
   */
  private noteShortfall(): void {
    const short = !this.stopped && (!this.membership.settled || [...this.desiredShards()].some((shard) => this.servingEpoch(shard) === undefined));
    if (!short) this.shortSince = undefined;
    else this.shortSince ??= performance.now();
  }

  private desiredShards(): Set<number> {
    const live = this.membership.live();
    if (live !== this.desiredFor) {
      this.desiredFor = live;
      this.desired = new Set();
      if (live.includes(this.self)) {
        for (let shard = 0; shard < SHARD_COUNT; shard++) if (desiredOwner(shard, live) === this.self) this.desired.add(shard);
      }
    }
    return this.desired;
  }

  /** Shards another live node should own now: a bounded batch per tick, each drained then released. */
  private handBack(desired: Set<number>): void {
    const leaving = [...this.held].filter(([shard, held]) => !desired.has(shard) && !held.releasing).slice(0, this.timing.releasePerTick);
    for (const [shard, held] of leaving) {
      held.releasing = true;
      void this.hooks
        .drain(shard, HANDOFF_DRAIN_MS)
        .then(() => this.leases.release([shard]))
        .catch((error: unknown) => this.logger.warn({ err: error, shard }, 'shard hand-back failed; its lease will lapse'))
        .finally(() => this.held.get(shard) === held && this.held.delete(shard));
    }
  }

  private async take(desired: Set<number>): Promise<void> {
    const wanted = [...desired].filter((shard) => !this.held.has(shard));
    if (!wanted.length) return;
    const sent = performance.now();
    const { shards: acquired, retryInMs } = await this.leases.acquire(wanted);
    if (retryInMs !== undefined) this.placeIn(retryInMs);
    if (!acquired.length) return;
    let epochs: Map<number, number>;
    try {
      epochs = await this.fences.bump(acquired, this.self);
    } catch (error) {
      await this.leases.release(acquired).catch(() => undefined);
      throw error;
    }
    // Fence rows still locked by an old owner's write: let go and try again next tick.
    const skipped = acquired.filter((shard) => !epochs.has(shard));
    if (skipped.length) await this.leases.release(skipped);
    const servesUntil = this.servesUntil(sent);
    for (const [shard, epoch] of epochs) this.held.set(shard, { epoch, servesUntil, releasing: false });
    this.logger.info({ node: this.self, acquired: epochs.size, owned: this.held.size }, 'acquired shards');
  }

  /** Places again when a gone member's grace ends (a few ms late, so Redis's clock has passed it too). */
  private placeIn(ms: number): void {
    if (this.stopped || ms >= this.timing.tickMs) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.place(), ms + 5);
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.stopped || !this.held.size) return;
    this.renewing = true;
    try {
      const shards = [...this.held.keys()];
      const sent = performance.now();
      const renewed = new Set(await this.leases.renew(shards));
      const servesUntil = this.servesUntil(sent);
      for (const shard of renewed) {
        const held = this.held.get(shard);
        if (held) held.servesUntil = servesUntil;
      }
      this.drop(shards.filter((shard) => !renewed.has(shard) && this.held.has(shard)), 'lease lost');
    } catch (error) {
      this.logger.warn({ err: error }, 'lease renewal failed; shards stop being served when their leases could lapse');
    } finally {
      this.renewing = false;
      this.expire();
    }
  }

  /** A lease set or extended by a request sent at `sent` is served until before Redis could expire it. */
  private servesUntil(sent: number): number {
    return sent + this.timing.leaseTtlMs - this.timing.safetyMarginMs;
  }

  /** Shards whose lease could have lapsed are dropped even while Redis is unreachable. */
  private expire(): void {
    const now = performance.now();
    this.drop([...this.held].filter(([, held]) => now >= held.servesUntil).map(([shard]) => shard), 'lease could lapse');
  }

  private drop(shards: number[], reason: string): void {
    if (!shards.length) return;
    for (const shard of shards) {
      this.held.delete(shard);
      void this.hooks.drop(shard);
    }
    this.logger.warn({ node: this.self, shards: shards.length, reason }, 'stopped serving shards');
  }

  /** Membership lost: stop every actor; release what Redis still lets us, so others need not wait. */
  private async dropAll(): Promise<void> {
    const shards = [...this.held.keys()];
    this.drop(shards, 'cluster membership lost');
    this.desiredFor = undefined;
    await this.leases.release(shards).catch(() => undefined);
  }
}
