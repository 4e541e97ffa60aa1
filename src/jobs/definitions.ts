/**
 * Background job kinds: what each carries. Empty here on purpose: each domain module that owns a kind
 * adds it with declaration merging, so this layer never imports the domain:
 *
 *   declare module '../../jobs/definitions' {
 *     interface JobPayloads {
 *       'push-fanout': PushFanoutJob;
 *     }
 *   }
 *
 * and exports its `JobKind` (retries, id) and its processor; src/boot/jobs.ts lists them all.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface JobPayloads {}

export type JobName = keyof JobPayloads & string;

/** How a job kind runs; in cluster mode each kind is its own BullMQ queue, named after it. */
export interface JobPolicy {
  attempts: number;
  /** First retry delay; each further retry doubles it (a processor may ask for another wait: `RetryAfter`). */
  backoffMs: number;
  /** Jobs of this kind one process runs at a time. */
  concurrency: number;
  /**
   * How long a finished job's id is remembered, so the same work asked for again is ignored instead of
   * done twice. Absent: forgotten at once, and the same work may be asked for again (re-indexing).
   */
  rememberDoneSeconds?: number;
}

/**
 * How one kind is queued. A job's id is deterministic (`idOf`), so enqueueing the same work twice while
 * it waits or runs (or, with `rememberDoneSeconds`, soon after it finished) is a no-op.
 */
export interface JobKind<N extends JobName> {
  policy: JobPolicy;
  idOf(payload: JobPayloads[N]): string;
}

export type JobKinds<K extends JobName = JobName> = { [N in K]: JobKind<N> };

/** A job id part from free text: BullMQ ids may not contain ':', and the escaping keeps distinct texts distinct. */
export const jobIdPart = (text: string): string => encodeURIComponent(text);

export interface JobAttempt {
  /** 1 for the first run. */
  attempt: number;
  /** No retry follows this run if it throws: the processor records the failure for good. */
  finalAttempt: boolean;
}

export type JobProcessor<N extends JobName> = (payload: JobPayloads[N], attempt: JobAttempt) => Promise<void>;
export type JobProcessors<K extends JobName = JobName> = { [N in K]: JobProcessor<N> };

/** Jobs of one kind not yet finished: queued, running, or waiting out a backoff before their next attempt. */
export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
}

/** Read when metrics are scraped: BullMQ's counts in cluster mode (the whole cluster's), this process's in single-node mode. */
export type QueueDepths = Record<JobName, QueueDepth>;

/** Where domain code sends background work: BullMQ in cluster mode, this process in single-node mode. */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void>;
  close(): Promise<void>;
}
