import type { Transaction } from 'sequelize';
import type { Logger } from 'pino';
import { AppError } from '../../errors';
import { Activation, type Delivery, type UntypedInstance } from './activation';
import type { ActivationEnv, ActorBehaviour } from './behaviour';
import type { ActorKind, UntypedMessage } from './protocol';
import type { Reminders } from './reminders';

/** A behaviour seen by the runtime, which routes messages of any kind. */
export interface UntypedBehaviour {
  readonly kind: string;
  readonly turnDeadlineMs?: number;
  readonly idleMs?: number;
  activate(env: ActivationEnv<never>, first: never): Promise<UntypedInstance>;
}

/** A behaviour of any declared kind, as node setup lists them. */
export type AnyBehaviour = { [K in ActorKind]: ActorBehaviour<K> }[ActorKind];

export interface HostOptions {
  node: string;
  behaviours: readonly AnyBehaviour[];
  /** The epoch under which this node serves the shard right now, or undefined when it does not. */
  servingEpoch(shard: number): number | undefined;
  fencedWrite<T>(shard: number, epoch: number, work: (transaction: Transaction) => Promise<T>): Promise<T>;
  /** A write found a newer epoch: this node lost the shard without noticing yet. */
  onStaleShard(shard: number): void;
  reminders: Reminders;
  logger: Logger;
  turnDeadlineMs: number;
  /** Idle actors passivate after this long; state reloads from Postgres on the next message. */
  idleMs: number;
}

const SWEEP_MS = 250;

/**
 * An activation's environment. A class, not an object of closures: a node may hold tens of
 * thousands of live actors (visitors), and methods on the prototype cost them nothing each.
 */
class HostedEnv implements ActivationEnv<never> {
  readonly node: string;
  readonly logger: Logger;

  constructor(
    readonly kind: never,
    readonly id: string,
    readonly shard: number,
    readonly epoch: number,
    private readonly options: HostOptions,
  ) {
    this.node = options.node;
    this.logger = options.logger;
  }

  write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.options.fencedWrite(this.shard, this.epoch, work);
  }

  remind(message: never, { key, delayMs }: { key: string; delayMs: number }): Promise<void> {
    return this.options.reminders.schedule(this.kind, this.id, message as UntypedMessage, { key, delayMs });
  }

  cancelReminder(key: string): Promise<void> {
    return this.options.reminders.cancel(this.kind, this.id, key);
  }
}

/** The actors living on this node: activation on first message, deadlines, passivation, shard moves. */
export class ActorHost {
  private readonly activations = new Map<string, Activation>();
  /** Those with a turn running or queued: the only ones whose deadlines the sweep needs to look at. */
  private readonly working = new Set<Activation>();
  private readonly byShard = new Map<number, Set<Activation>>();
  private readonly behaviours: Map<string, UntypedBehaviour>;
  private readonly sweeper: NodeJS.Timeout;
  private lastPassivation = Date.now();
  /** Per kind: how long its actors may idle (the kind's own time, capped by the runtime's). */
  private readonly idleMsOf: Map<string, number>;
  /** Passivation looks for idle actors a few times per shortest idle time (at most every 30 s). */
  private readonly passivationEveryMs: number;

  constructor(private readonly options: HostOptions) {
    // The typed contract is checked where behaviours and callers are written; here messages are data.
    this.behaviours = new Map(options.behaviours.map((b) => [b.kind, b as unknown as UntypedBehaviour]));
    this.idleMsOf = new Map(options.behaviours.map((b) => [b.kind, Math.min(b.idleMs ?? options.idleMs, options.idleMs)]));
    this.passivationEveryMs = Math.min(Math.min(options.idleMs, ...this.idleMsOf.values()) / 4, 30_000);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  get size(): number {
    return this.activations.size;
  }

  /** Live actors per hosted kind (0 included), counted when asked: a metrics scrape, not every activation. */
  countByKind(): Record<string, number> {
    const counts: Record<string, number> = Object.fromEntries([...this.behaviours.keys()].map((kind) => [kind, 0]));
    for (const activation of this.activations.values()) counts[activation.env.kind] = (counts[activation.env.kind] ?? 0) + 1;
    return counts;
  }

  /**
   * Runs the message on the actor here; undefined when this node does not serve the shard right now.
   * (The returned promise can still reject with NotOwner if the shard leaves before the turn starts.)
   */
  deliver(kind: string, id: string, shard: number, message: UntypedMessage, delivery: Delivery): Promise<unknown> | undefined {
    const epoch = this.options.servingEpoch(shard);
    if (epoch === undefined) return undefined;
    const behaviour = this.behaviours.get(kind);
    if (!behaviour) return Promise.reject(new AppError(400, 'unknown_actor', `No actor kind "${kind}".`));
    const name = `${kind}:${id}`;
    let activation = this.activations.get(name);
    if (activation && activation.env.epoch !== epoch) {
      // This node lost and re-acquired the shard: the old copy may hold state another owner changed.
      this.remove(activation);
      activation = undefined;
    }
    activation ??= this.create(behaviour, id, shard, epoch, name);
    return activation.deliver(message, delivery);
  }

  /** Waits (bounded) for the shard's actors to finish their turns, then deactivates them. */
  async drainShard(shard: number, boundMs: number): Promise<void> {
    const actors = [...(this.byShard.get(shard) ?? [])];
    const until = Date.now() + boundMs;
    while (actors.some((a) => !a.idle) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(actors.map((a) => this.remove(a)));
  }

  /** The shard is gone (lease lost, fenced out, node removed): drop its actors at once. */
  async dropShard(shard: number): Promise<void> {
    await Promise.all([...(this.byShard.get(shard) ?? [])].map((a) => this.remove(a)));
  }

  async stop(boundMs: number): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.byShard.keys()].map((shard) => this.drainShard(shard, boundMs)));
  }

  private create(behaviour: UntypedBehaviour, id: string, shard: number, epoch: number, name: string): Activation {
    const { kind } = behaviour;
    const env = new HostedEnv(kind as never, id, shard, epoch, this.options);
    const activation = new Activation(env, (first) => behaviour.activate(env, first as never), behaviour.turnDeadlineMs ?? this.options.turnDeadlineMs, (stale) => {
      this.options.logger.warn({ shard, epoch, actor: kind, id }, 'fenced out: another node owns this shard now');
      void this.remove(stale);
      this.options.onStaleShard(shard);
    }, this.working);
    this.activations.set(name, activation);
    let inShard = this.byShard.get(shard);
    if (!inShard) this.byShard.set(shard, (inShard = new Set()));
    inShard.add(activation);
    return activation;
  }

  private async remove(activation: Activation): Promise<void> {
    const name = `${activation.env.kind}:${activation.env.id}`;
    if (this.activations.get(name) === activation) this.activations.delete(name);
    this.working.delete(activation);
    const inShard = this.byShard.get(activation.env.shard);
    inShard?.delete(activation);
    if (inShard?.size === 0) this.byShard.delete(activation.env.shard);
    await activation.close();
  }

  private sweep(): void {
    const now = Date.now();
    for (const activation of this.working) activation.expire(now);
    if (now - this.lastPassivation < this.passivationEveryMs) return;
    this.lastPassivation = now;
    for (const activation of this.activations.values()) {
      if (activation.idle && now - activation.lastActive > this.idleMsOf.get(activation.env.kind)!) void this.remove(activation);
    }
  }
}
