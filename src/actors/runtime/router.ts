import type { Logger } from 'pino';
import { isDatabaseUnavailable, warnDatabaseUnavailable } from '../../db/unavailable';
import { AppError } from '../../errors';
import type { LeaseStore } from '../cluster/leases';
import type { Membership } from '../cluster/membership';
import { shardOf } from '../cluster/shards';
import { NotOwner, type Delivery } from './activation';
import { actorUnavailable, fromWireError, ownerLost, toWireError, turnTimedOut } from './errors';
import type { ActorHost } from './host';
import type { ActorKind, ChunkOf, MessageOf, MessageType, ReplyOf, UntypedMessage } from './protocol';
import { ChunkQueue, type ActorStream } from './stream';
import type { Envelope, Transport } from './transport';

export interface AskOptions {
  /** How long the caller waits, routing retries included (default 10 s). */
  timeoutMs?: number;
  /** A retried message with the same key never runs a second turn while the actor lives. */
  idempotencyKey?: string;
}

/** How surfaces, jobs and actors talk to actors, wherever they live. */
export interface Actors {
  ask<K extends ActorKind, T extends MessageType<K>>(kind: K, id: string, message: MessageOf<K, T>, options?: AskOptions): Promise<ReplyOf<K, T>>;
  /** Fire and forget: delivery is still routed and retried; failures are logged. */
  tell<K extends ActorKind, T extends MessageType<K>>(kind: K, id: string, message: MessageOf<K, T>, options?: AskOptions): void;
  stream<K extends ActorKind, T extends MessageType<K>>(
    kind: K,
    id: string,
    message: MessageOf<K, T>,
    options?: AskOptions,
  ): ActorStream<ChunkOf<K, T>, ReplyOf<K, T>>;
}

interface Pending {
  owner: string;
  /** Whether the owner was in our live list; only a live owner that disappears counts as lost. */
  ownerSeen: boolean;
  deadline: number;
  what: string;
  sink?: Delivery['sink'];
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

type Outcome = { value: unknown } | typeof MOVED;
const MOVED = Symbol('moved');
const DEFAULT_TIMEOUT_MS = 10_000;
const WATCH_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RouterOptions {
  self: string;
  /** Absent on clients that only send (observers): they never own shards. */
  host?: ActorHost;
  leases: LeaseStore;
  membership: Membership;
  logger: Logger;
}

/**
 * Finds each message's actor: on this node it runs in place (no serialization); elsewhere it goes to
 * the owner's channel with a correlation id and deadline, and "moved" / undelivered answers make the
 * router re-resolve the owner and retry until the deadline. Asks to an owner that dies fail fast.
 */
export class ActorRouter implements Actors {
  private readonly pending = new Map<number, Pending>();
  private readonly owners = new Map<number, string>();
  private transport: Transport | undefined;
  private nextCorrelation = 0;
  private readonly watcher: NodeJS.Timeout;

  constructor(private readonly options: RouterOptions) {
    this.watcher = setInterval(() => this.watch(), WATCH_MS).unref();
    options.membership.on('change', () => this.watch());
  }

  /** Cluster mode: the channel to other members (single-node mode never leaves the process). */
  connect(transport: Transport): void {
    this.transport = transport;
  }

  ask<K extends ActorKind, T extends MessageType<K>>(kind: K, id: string, message: MessageOf<K, T>, options?: AskOptions): Promise<ReplyOf<K, T>> {
    return this.route(kind, id, message as UntypedMessage, options) as Promise<ReplyOf<K, T>>;
  }

  tell<K extends ActorKind, T extends MessageType<K>>(kind: K, id: string, message: MessageOf<K, T>, options?: AskOptions): void {
    this.route(kind, id, message as UntypedMessage, options).catch((error: unknown) =>
      this.options.logger.warn({ err: error, actor: kind, id, type: (message as UntypedMessage).type }, 'actor tell failed'),
    );
  }

  stream<K extends ActorKind, T extends MessageType<K>>(kind: K, id: string, message: MessageOf<K, T>, options?: AskOptions) {
    const queue = new ChunkQueue<ChunkOf<K, T>, ReplyOf<K, T>>();
    this.route(kind, id, message as UntypedMessage, options, (seq, chunk) => queue.push(seq, chunk as ChunkOf<K, T>)).then(
      (value) => queue.end(value as ReplyOf<K, T>),
      (error: unknown) => queue.fail(error),
    );
    return queue;
  }

  /** Every envelope addressed to this member: asks to serve, and answers to our own asks. */
  receive(envelope: Envelope): void {
    if (envelope.t === 'ask') return this.serve(envelope);
    const pending = this.pending.get(envelope.c);
    if (!pending) return; // answered after its deadline: the caller has moved on
    if (envelope.t === 'chunk') return pending.sink?.(envelope.n, envelope.v);
    this.pending.delete(envelope.c);
    if (envelope.t === 'ok') pending.resolve({ value: envelope.v });
    else if (envelope.t === 'moved') pending.resolve(MOVED);
    else pending.reject(fromWireError(envelope.e));
  }

  stop(): void {
    clearInterval(this.watcher);
    for (const pending of this.pending.values()) pending.reject(ownerLost(pending.what));
    this.pending.clear();
  }

  private route(kind: string, id: string, message: UntypedMessage, options: AskOptions = {}, sink?: Delivery['sink']): Promise<unknown> {
    const shard = shardOf(kind, id);
    const delivery: Delivery = { key: options.idempotencyKey, deadline: Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS), sink };
    // The fast path: the actor lives here; no lookup, no copy, no extra hop.
    const local = this.options.host?.deliver(kind, id, shard, message, delivery);
    if (!local) return this.retry(kind, id, shard, message, delivery);
    return local.catch((error: unknown) => {
      if (!(error instanceof NotOwner)) throw error;
      return this.retry(kind, id, shard, message, delivery);
    });
  }

  private async retry(kind: string, id: string, shard: number, message: UntypedMessage, delivery: Delivery): Promise<unknown> {
    const { host, self } = this.options;
    // Every attempt of one ask keeps its correlation id, which the owner uses as the idempotency key
    // when the caller gave none: a resent envelope (a publish that failed after reaching Redis, a
    // reconnect replaying it, a retry) never runs a second turn.
    const c = ++this.nextCorrelation;
    for (let attempt = 0; ; attempt++) {
      const local = host?.deliver(kind, id, shard, message, delivery);
      if (local) {
        try {
          return await local;
        } catch (error) {
          if (!(error instanceof NotOwner)) throw error;
        }
      } else {
        // A lease outlives a frozen or dead owner by up to its TTL: asking such an owner would only wait
        // out the deadline, so until the lease moves to a live member there is no owner to ask.
        const cached = this.owners.get(shard);
        const owner = cached && this.isLive(cached) ? cached : await this.lookUpOwner(shard);
        if (owner && owner !== self && this.isLive(owner)) {
          let outcome: Outcome;
          try {
            outcome = await this.remote(c, owner, kind, id, message, delivery);
          } catch (error) {
            this.owners.delete(shard); // lost or silent: the next ask looks the owner up again
            throw error;
          }
          if (outcome !== MOVED) return outcome.value;
        }
        this.owners.delete(shard);
      }
      // No owner yet (starting, moving, failing over): back off and look again until the deadline.
      const wait = Math.min(20 * 2 ** attempt, 250);
      if (Date.now() + wait >= delivery.deadline) throw actorUnavailable(`${kind} ${id}`);
      await sleep(wait);
    }
  }

  private isLive(member: string): boolean {
    return member === this.options.self || this.options.membership.isLive(member);
  }

  private async lookUpOwner(shard: number): Promise<string | undefined> {
    const holder = await this.options.leases.holder(shard).catch(() => null);
    if (holder) this.owners.set(shard, holder);
    return holder ?? undefined;
  }

  private async remote(c: number, owner: string, kind: string, id: string, message: UntypedMessage, delivery: Delivery): Promise<Outcome> {
    const transport = this.transport;
    if (!transport) return MOVED;
    const answered = new Promise<Outcome>((resolve, reject) => {
      const ownerSeen = this.options.membership.isLive(owner);
      this.pending.set(c, { owner, ownerSeen, deadline: delivery.deadline, what: `${kind} ${id}`, sink: delivery.sink, resolve, reject });
    });
    // `watch` may fail this ask while the publish below is still in flight, before anyone awaits it;
    // the caller still receives the rejection through the `return answered` below.
    answered.catch(() => undefined);
    const envelope: Envelope = { t: 'ask', c, r: this.options.self, d: delivery.deadline, k: delivery.key, kind, id, m: message };
    if (delivery.sink) envelope.s = 1;
    const receivers = await transport.send(owner, envelope).catch(() => 0);
    if (receivers === 0) {
      // Nobody listens on that channel: the lease outlived its node. Nothing ran; safe to retry.
      this.pending.delete(c);
      return MOVED;
    }
    return answered;
  }

  private serve(ask: Extract<Envelope, { t: 'ask' }>): void {
    const { host } = this.options;
    if (Date.now() > ask.d) return; // the caller stopped waiting
    const sink: Delivery['sink'] = ask.s ? (n, v) => this.answer(ask.r, { t: 'chunk', c: ask.c, n, v }) : undefined;
    const turn = host?.deliver(ask.kind, ask.id, shardOf(ask.kind, ask.id), ask.m, { key: ask.k ?? `${ask.r}#${ask.c}`, deadline: ask.d, sink });
    if (!turn) return this.answer(ask.r, { t: 'moved', c: ask.c });
    turn.then(
      (v) => this.answer(ask.r, { t: 'ok', c: ask.c, v }),
      (error: unknown) => {
        if (error instanceof NotOwner) return this.answer(ask.r, { t: 'moved', c: ask.c });
        if (isDatabaseUnavailable(error)) warnDatabaseUnavailable(this.options.logger, error, `${ask.kind} actor turn`);
        else if (!(error instanceof AppError)) this.options.logger.error({ err: error, actor: ask.kind, id: ask.id }, 'actor turn failed');
        return this.answer(ask.r, { t: 'err', c: ask.c, e: toWireError(error) });
      },
    );
  }

  private answer(member: string, envelope: Envelope): void {
    this.transport?.send(member, envelope).catch((error: unknown) => this.options.logger.warn({ err: error }, 'could not answer an actor ask'));
  }

  /** Fails asks whose deadline passed or whose owner left the cluster (the turn may have run). */
  private watch(): void {
    if (!this.pending.size) return;
    const now = Date.now();
    const { membership } = this.options;
    for (const [c, pending] of this.pending) {
      const live = membership.isLive(pending.owner);
      if (!pending.ownerSeen) pending.ownerSeen = live;
      if (now > pending.deadline) pending.reject(turnTimedOut(pending.what));
      else if (pending.ownerSeen && !live) pending.reject(ownerLost(pending.what));
      else continue;
      this.pending.delete(c);
    }
  }
}
