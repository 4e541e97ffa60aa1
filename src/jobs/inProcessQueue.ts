import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import type { JobKinds, JobName, JobPayloads, JobProcessor, JobProcessors, JobQueue, QueueDepth, QueueDepths } from './definitions';
import { retryDelayMs } from './retryAfter';

// Finished ids are swept at most this often; a lookup checks the expiry itself in between.
const SWEEP_EVERY_MS = 60_000;

/**
 * Single-node mode: jobs run in this process with the same ids, retries, backoff (`RetryAfter`
 * included) and finished-id memory as BullMQ (`UnrecoverableError` ends retries here too). Nothing
 * survives a restart; the records a job works on keep their state (a source stays `pending`), so
 * work is never reported done when it is not.
 */
export class InProcessJobQueue implements JobQueue {
  private processors?: Partial<JobProcessors>;
  private readonly waiting = new Map<JobName, (() => Promise<void>)[]>();
  private readonly running = new Map<JobName, number>();
  /** Jobs waiting out a backoff before their next attempt, per kind. */
  private readonly backingOff = new Map<JobName, number>();
  /** Ids waiting, running or backing off. */
  private readonly known = new Set<string>();
  /** Ids of finished jobs whose kind remembers them (`rememberDoneSeconds`), with when to forget them. */
  private readonly done = new Map<string, number>();
  private lastSweep = Date.now();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly kinds: JobKinds,
  ) {}

  /** Starts running jobs (queued ones included) of the kinds given processors; other kinds keep waiting. */
  process(processors: Partial<JobProcessors>): void {
    this.processors = processors;
    for (const name of this.waiting.keys()) this.drain(name);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    const id = this.kinds[name].idOf(payload);
    if (this.closed || this.known.has(id) || this.remembered(id)) return;
    this.known.add(id);
    this.schedule(name, id, payload, 1);
  }

  private schedule<N extends JobName>(name: N, id: string, payload: JobPayloads[N], attempt: number): void {
    const { policy } = this.kinds[name];
    const run = async () => {
      const process = this.processors![name] as JobProcessor<N>;
      try {
        await process(payload, { attempt, finalAttempt: attempt >= policy.attempts });
        this.finish(name, id);
      } catch (error) {
        const retry = attempt < policy.attempts && !(error instanceof UnrecoverableError) && !this.closed;
        this.logger.warn({ err: error, job: id, attempt, retry }, 'job failed');
        if (!retry) return this.finish(name, id);
        this.backingOff.set(name, (this.backingOff.get(name) ?? 0) + 1);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.backingOff.set(name, (this.backingOff.get(name) ?? 1) - 1);
          this.schedule(name, id, payload, attempt + 1);
        }, retryDelayMs(error, policy.backoffMs, attempt));
        this.timers.add(timer);
      }
    };
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), run]);
    this.drain(name);
  }

  private finish(name: JobName, id: string): void {
    this.known.delete(id);
    const seconds = this.kinds[name].policy.rememberDoneSeconds;
    if (seconds) this.done.set(id, Date.now() + seconds * 1000);
  }

  private remembered(id: string): boolean {
    const now = Date.now();
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      for (const [doneId, forgetAt] of this.done) if (forgetAt <= now) this.done.delete(doneId);
    }
    const forgetAt = this.done.get(id);
    return forgetAt !== undefined && forgetAt > now;
  }

  private drain(name: JobName): void {
    const queue = this.waiting.get(name) ?? [];
    while (this.processors?.[name] && queue.length && (this.running.get(name) ?? 0) < this.kinds[name].policy.concurrency) {
      const run = queue.shift()!;
      this.running.set(name, (this.running.get(name) ?? 0) + 1);
      const done = run().finally(() => {
        this.inFlight.delete(done);
        this.running.set(name, (this.running.get(name) ?? 1) - 1);
        this.drain(name);
      });
      this.inFlight.add(done);
    }
  }

  /** Every kind's counts in this process, as BullMQ reports them in cluster mode. */
  async depth(): Promise<QueueDepths> {
    const depthOf = (name: JobName): [JobName, QueueDepth] => [
      name,
      { waiting: this.waiting.get(name)?.length ?? 0, active: this.running.get(name) ?? 0, delayed: this.backingOff.get(name) ?? 0 },
    ];
    return Object.fromEntries((Object.keys(this.kinds) as JobName[]).map(depthOf)) as QueueDepths;
  }

  /** Resolves once no job is waiting, running or backing off (tests wait for a chain of jobs to finish with it). */
  async settled(pollMs = 10): Promise<void> {
    while (this.known.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }

  /** Stops taking work and waits for running jobs; queued and backed-off ones are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.waiting.clear();
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }
}
