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

const RECENT_KEYS = 128;

/**
 * One actor living on this node: a mailbox that runs one turn at a time. State is loaded by the
 * behaviour's `activate` on the first message and dropped on deactivation; Postgres is the truth.
 */
export class Activation {
  lastActive = Date.now();
  /** The turn running now, watched by the host's deadline sweep. */
  current: { job: Job; deadline: number; controller?: AbortController; settled: boolean } | undefined;
  private queue: Job[] = [];
  private running = false;
  private closed = false;
  private instance: UntypedInstance | undefined;
  private recent: Map<string, Promise<unknown>> | undefined;

  constructor(
    readonly env: ActivationEnv<never>,
    private readonly activate: () => Promise<UntypedInstance>,
    private readonly turnDeadlineMs: number,
    private readonly onStale: (activation: Activation) => void,
  ) {}

  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  deliver(message: UntypedMessage, delivery: Delivery): Promise<unknown> {
    if (this.closed) return Promise.reject(new NotOwner());
    const seen = delivery.key === undefined ? undefined : this.recent?.get(delivery.key);
    if (seen) return seen;
    const outcome = new Promise<unknown>((resolve, reject) => this.queue.push({ ...delivery, message, resolve, reject }));
    if (delivery.key !== undefined) this.remember(delivery.key, outcome);
    if (!this.running) void this.drain();
    return outcome;
  }

  /** The turn ran past its deadline: abort it and free the caller; the mailbox still waits for it to settle. */
  expire(now: number): void {
    const turn = this.current;
    if (!turn || turn.settled || now < turn.deadline) return;
    turn.settled = true;
    (turn.controller ??= new AbortController()).abort(turnTimedOut(`${this.env.kind} ${this.env.id}`));
    turn.job.reject(turnTimedOut(`${this.env.kind} ${this.env.id}`));
    this.env.logger.warn({ actor: this.env.kind, id: this.env.id, type: turn.job.message.type }, 'actor turn passed its deadline');
  }

  /** Stops taking messages, aborts the running turn, refuses the queued ones (they retry elsewhere). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current?.controller?.abort(ownerLost(`${this.env.kind} ${this.env.id}`));
    for (const job of this.queue.splice(0)) job.reject(new NotOwner());
    try {
      await this.instance?.deactivate?.();
    } catch (error) {
      this.env.logger.error({ err: error, actor: this.env.kind, id: this.env.id }, 'actor deactivation failed');
    }
  }

  private async drain(): Promise<void> {
    this.running = true;
    for (let job = this.queue.shift(); job; job = this.queue.shift()) await this.turn(job);
    this.running = false;
    this.lastActive = Date.now();
  }

  private async turn(job: Job): Promise<void> {
    const now = Date.now();
    if (now >= job.deadline) return job.reject(turnTimedOut(`${this.env.kind} ${this.env.id}`));
    const current: NonNullable<Activation['current']> = { job, deadline: Math.min(job.deadline, now + this.turnDeadlineMs), settled: false };
    this.current = current;
    let seq = 0;
    const turn = {
      get signal() {
        return (current.controller ??= new AbortController()).signal;
      },
      emit: (chunk: unknown) => {
        if (!current.settled) job.sink?.(++seq, chunk);
      },
    };
    try {
      this.instance ??= await this.activate();
      const handler = this.instance.handle[job.message.type];
      if (!handler) throw new AppError(400, 'unknown_message', `${this.env.kind} actors do not handle "${job.message.type}".`);
      const value = await handler.call(this.instance.handle, job.message, turn);
      if (!current.settled) job.resolve(value);
    } catch (error) {
      if (error instanceof StaleEpochError) {
        // Another node owns the shard now: nothing of this turn landed; drop this copy of the actor.
        if (!current.settled) job.reject(ownerLost(`${this.env.kind} ${this.env.id}`));
        current.settled = true;
        this.onStale(this);
      } else if (!current.settled) {
        job.reject(error);
      }
    } finally {
      current.settled = true;
      this.current = undefined;
    }
  }

  private remember(key: string, outcome: Promise<unknown>): void {
    const recent = (this.recent ??= new Map());
    recent.set(key, outcome);
    outcome.catch(() => undefined); // the caller handles it; a remembered copy must not be "unhandled"
    if (recent.size > RECENT_KEYS) recent.delete(recent.keys().next().value!);
  }
}
