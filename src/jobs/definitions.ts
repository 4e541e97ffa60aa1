import type { PushDeliveryJob, PushFanoutJob } from '../domain/push/jobs';

/**
 * Background job kinds: what each carries and how it is retried. A job's id is deterministic
 * (`jobIdOf`), so enqueueing the same work twice while it waits or runs (or, for kinds with
 * `rememberDoneSeconds`, soon after it finished) is a no-op.
 */
export interface JobPayloads {
  /** (Re)build a knowledge source's passages: chunk text / Q&A, or crawl a URL source's site. */
  'index-source': { sourceId: number };
  /** One agent notification event: find who should hear of it and queue one delivery per device. */
  'push-fanout': PushFanoutJob;
  /** One notification to one device (push subscription). */
  'push-deliver': PushDeliveryJob;
}

export type JobName = keyof JobPayloads;

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

export const JOB_POLICIES: { [N in JobName]: JobPolicy } = {
  'index-source': { attempts: 5, backoffMs: 2_000, concurrency: 2 },
  // An event raised twice (a retried actor turn) must not notify twice; an hour outlives every push's TTL.
  'push-fanout': { attempts: 5, backoffMs: 1_000, concurrency: 4, rememberDoneSeconds: 3_600 },
  // 2 + 4 + 8 + 16 + 32 s of backoff: about a minute of push-service trouble is ridden out.
  'push-deliver': { attempts: 6, backoffMs: 2_000, concurrency: 16, rememberDoneSeconds: 3_600 },
};

/** A job id from free text: BullMQ ids may not contain ':', and the escaping keeps distinct texts distinct. */
const idPart = (text: string): string => encodeURIComponent(text);

export const jobIdOf: { [N in JobName]: (payload: JobPayloads[N]) => string } = {
  'index-source': ({ sourceId }) => `index-source-${sourceId}`,
  'push-fanout': ({ key }) => `push-fanout-${idPart(key)}`,
  'push-deliver': ({ key, subscriptionId }) => `push-deliver-${subscriptionId}-${idPart(key)}`,
};

export interface JobAttempt {
  /** 1 for the first run. */
  attempt: number;
  /** No retry follows this run if it throws: the processor records the failure for good. */
  finalAttempt: boolean;
}

export type JobProcessor<N extends JobName> = (payload: JobPayloads[N], attempt: JobAttempt) => Promise<void>;
export type JobProcessors = { [N in JobName]: JobProcessor<N> };

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
