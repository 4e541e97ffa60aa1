import { StaleEpochError } from '../cluster/fences';
import { AppError } from '../../errors';
import type { ActivationEnv } from './behaviour';
import { ownerLost, turnTimedOut } from './errors';
import type { UntypedMessage } from './protocol';

/** The shard is not (or no longer) served here: the router re-resolves the owner and retries. */
export class NotOwner extends Error {
  override name = 'NotOwner';
}

export interface Delivery {
  /** Deduplicates retries: a key seen recently answers with the first turn's outcome. */
  key?: string;
  /** Absolute deadline (ms since epoch) after which the caller no longer waits. */
  deadline: number;
  /** Receives a streaming turn's chunks in order. */
  sink?: (seq: number, chunk: unknown) => void;
}

interface Job extends Delivery {
  message: UntypedMessage;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type UntypedHandler = (message: UntypedMessage, turn: { signal: AbortSignal; emit(chunk: unknown): void }) => unknown;
export interface UntypedInstance {
  handle: Record<string, UntypedHandler>;
  deactivate?(): Promise<void> | void;
}

interface Turn {
  job: Job;
  deadline: number;
  /** Answered (or expired): later outcomes of the handler are dropped. */
  settled: boolean;
  seq: number;
  controller?: AbortController;
}

/** What a handler sees of its turn; the abort controller is made only if the handler asks for the signal. */
class TurnHandle {
  constructor(private readonly turn: Turn) {}

  get signal(): AbortSignal {
    return (this.turn.controller ??= new AbortController()).signal;
  }

  emit(chunk: unknown): void {
    if (!this.turn.settled) this.turn.job.sink?.(++this.turn.seq, chunk);
  }
}

/** Keys are kept for one to two of these periods: well past any ask deadline and its retries. */
const KEY_GENERATION_MS = 30_000;

/**
 * One actor living on this node: a mailbox that runs one turn at a time. State is loaded by the
 * behaviour's `activate` on the first message and dropped on deactivation; Postgres is the truth.
 */
export class Activation {
  lastActive = Date.now();
  /** The turn running now, watched by the host's deadline sweep. */
  current: Turn | undefined;
  private queue: Job[] = [];
  private running = false;
  private closed = false;
  private instance: UntypedInstance | undefined;
  /** Idempotency keys in two generations: the older one is dropped whole, so remembering costs O(1). */
  private recent: { current: Map<string, Promise<unknown>>; previous: Map<string, Promise<unknown>>; since: number } | undefined;

  constructor(
    readonly env: ActivationEnv<never>,
    /** Loads the actor; given the message that woke it, whose turn runs next. */
    private readonly activate: (first: UntypedMessage) => Promise<UntypedInstance>,
    private readonly turnDeadlineMs: number,
    private readonly onStale: (activation: Activation) => void,
    /**
     * The host's activations with turns to run (this one while its mailbox works), which its
     * deadline sweep visits four times a second: a node may hold tens of thousands of idle visitor
     * actors, and visiting each of them grew a heartbeat's cost with the number of live visitors.
     */
    private readonly working?: Set<Activation>,
  ) {}

  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  deliver(message: UntypedMessage, delivery: Delivery): Promise<unknown> {
    if (this.closed) return Promise.reject(new NotOwner());
    const { key, deadline, sink } = delivery;
    const seen = key === undefined || !this.recent ? undefined : (this.recent.current.get(key) ?? this.recent.previous.get(key));
    if (seen) return seen;
    const outcome = new Promise<unknown>((resolve, reject) => this.queue.push({ key, deadline, sink, message, resolve, reject }));
    if (key !== undefined) this.remember(key, outcome);
    if (!this.running) this.drain();
    return outcome;
  }

  /** The turn ran past its deadline: abort it and free the caller; the mailbox still waits for it to settle. */
  expire(now: number): void {
    const turn = this.current;
    if (!turn || turn.settled || now < turn.deadline) return;
    turn.settled = true;
    const timedOut = turnTimedOut(`${this.env.kind} ${this.env.id}`);
    (turn.controller ??= new AbortController()).abort(timedOut);
    turn.job.reject(timedOut);
    this.env.logger.warn({ actor: this.env.kind, id: this.env.id, type: turn.job.message.type }, 'actor turn passed its deadline');
  }

  /** Stops taking messages, aborts the running turn, refuses the queued ones (they retry elsewhere). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current?.controller?.abort(ownerLost(`${this.env.kind} ${this.env.id}`));
    for (const job of this.queue.splice(0)) job.reject(new NotOwner());
    if (this.instance) await this.deactivate(this.instance);
  }

  private async deactivate(instance: UntypedInstance): Promise<void> {
    try {
      await instance.deactivate?.();
    } catch (error) {
      this.env.logger.error({ err: error, actor: this.env.kind, id: this.env.id }, 'actor deactivation failed');
    }
  }

  /**
   * Runs queued turns in order. Synchronous handlers run back to back in this call; the first turn
   * that awaits something parks the loop, which resumes when that turn settles.
   */
  private drain(): void {
    this.running = true;
    // A closed copy is no longer the host's: its deadlines went with it, as before.
    if (!this.closed) this.working?.add(this);
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      const pending = this.turn(job);
      if (pending) {
        void pending.then(() => this.drain());
        return;
      }
    }
    this.running = false;
    this.working?.delete(this);
    this.lastActive = Date.now();
    // shift() keeps the array's grown backing store; an idle actor (most of them) should not.
    this.queue = [];
  }

  /** Starts one turn; returns a promise only when the turn did not finish synchronously. */
  private turn(job: Job): Promise<void> | undefined {
    const now = Date.now();
    if (now >= job.deadline) return void job.reject(turnTimedOut(`${this.env.kind} ${this.env.id}`));
    const instance = this.instance;
    if (!instance) return this.activateThen(job);
    const current: Turn = { job, deadline: Math.min(job.deadline, now + this.turnDeadlineMs), settled: false, seq: 0 };
    this.current = current;
    let result: unknown;
    try {
      const handler = instance.handle[job.message.type];
      if (!handler) throw new AppError(400, 'unknown_message', `${this.env.kind} actors do not handle "${job.message.type}".`);
      result = handler.call(instance.handle, job.message, new TurnHandle(current));
    } catch (error) {
      return void this.settle(current, false, error);
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => this.settle(current, true, value),
        (error: unknown) => this.settle(current, false, error),
      );
    }
    this.settle(current, true, result);
    return undefined;
  }

  private async activateThen(job: Job): Promise<void> {
    let instance: UntypedInstance;
    try {
      instance = await this.activate(job.message);
    } catch (error) {
      return job.reject(error); // the next message tries to activate again
    }
    if (this.closed) {
      // The shard left while the state loaded (the chaos suite caught such a copy living on): this
      // copy never serves. Undo what activating set up and let the caller retry at the new owner.
      await this.deactivate(instance);
      return job.reject(new NotOwner());
    }
    this.instance = instance;
    await this.turn(job);
  }

  private settle(current: Turn, ok: boolean, outcome: unknown): void {
    const { job } = current;
    if (this.current === current) this.current = undefined;
    const answered = current.settled;
    current.settled = true;
    if (ok) {
      if (!answered) job.resolve(outcome);
    } else if (outcome instanceof StaleEpochError) {
      // Another node owns the shard now: nothing of this turn landed; drop this copy of the actor.
      if (!answered) job.reject(ownerLost(`${this.env.kind} ${this.env.id}`));
      this.onStale(this);
    } else if (!answered) {
      job.reject(outcome);
    }
  }

  private remember(key: string, outcome: Promise<unknown>): void {
    const now = Date.now();
    const recent = (this.recent ??= { current: new Map(), previous: new Map(), since: now });
    if (now - recent.since > KEY_GENERATION_MS) {
      recent.previous = recent.current;
      recent.current = new Map();
      recent.since = now;
    }
    recent.current.set(key, outcome);
  }
}
