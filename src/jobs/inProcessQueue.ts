import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { JOB_POLICIES, jobIdOf, type JobName, type JobPayloads, type JobProcessor, type JobProcessors, type JobQueue } from './definitions';

/**
 * Single-node mode: jobs run in this process with the same ids, retries and backoff as BullMQ
 * (`UnrecoverableError` ends retries here too). Nothing survives a restart; the records a job works
 * on keep their state (a source stays `pending`), so work is never reported done when it is not.
 */
export class InProcessJobQueue implements JobQueue {
  private processors?: JobProcessors;
  private readonly waiting = new Map<JobName, (() => Promise<void>)[]>();
  private readonly running = new Map<JobName, number>();
  private readonly known = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly logger: Logger) {}

  /** Starts running jobs (queued ones included) once the processors exist. */
  process(processors: JobProcessors): void {
    this.processors = processors;
    for (const name of this.waiting.keys()) this.drain(name);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    const id = jobIdOf[name](payload);
    if (this.closed || this.known.has(id)) return;
    this.known.add(id);
    this.schedule(name, id, payload, 1);
  }

  private schedule<N extends JobName>(name: N, id: string, payload: JobPayloads[N], attempt: number): void {
    const policy = JOB_POLICIES[name];
    const run = async () => {
      const process = this.processors![name] as JobProcessor<N>;
      try {
        await process(payload, { attempt, finalAttempt: attempt >= policy.attempts });
        this.known.delete(id);
      } catch (error) {
        const retry = attempt < policy.attempts && !(error instanceof UnrecoverableError) && !this.closed;
        this.logger.warn({ err: error, job: id, attempt, retry }, 'job failed');
        if (!retry) return void this.known.delete(id);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.schedule(name, id, payload, attempt + 1);
        }, policy.backoffMs * 2 ** (attempt - 1));
        this.timers.add(timer);
      }
    };
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), run]);
    this.drain(name);
  }

  private drain(name: JobName): void {
    const queue = this.waiting.get(name) ?? [];
    while (this.processors && queue.length && (this.running.get(name) ?? 0) < JOB_POLICIES[name].concurrency) {
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

  /** Stops taking work and waits for running jobs; queued and backed-off ones are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.waiting.clear();
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }
}
