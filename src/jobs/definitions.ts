/**
 * Background job kinds: what each carries and how it is retried. A job's id is deterministic
 * (`jobIdOf`), so enqueueing the same work twice while it waits or runs is a no-op.
 */
export interface JobPayloads {
  /** (Re)build a knowledge source's passages: chunk text / Q&A, or crawl a URL source's site. */
  'index-source': { sourceId: number };
}

export type JobName = keyof JobPayloads;

/** How a job kind runs; in cluster mode each kind is its own BullMQ queue, named after it. */
export interface JobPolicy {
  attempts: number;
  /** First retry delay; each further retry doubles it. */
  backoffMs: number;
  /** Jobs of this kind one process runs at a time. */
  concurrency: number;
}

export const JOB_POLICIES: { [N in JobName]: JobPolicy } = {
  'index-source': { attempts: 5, backoffMs: 2_000, concurrency: 2 },
};

// BullMQ job ids may not contain ':'.
export const jobIdOf: { [N in JobName]: (payload: JobPayloads[N]) => string } = {
  'index-source': ({ sourceId }) => `index-source-${sourceId}`,
};

export interface JobAttempt {
  /** 1 for the first run. */
  attempt: number;
  /** No retry follows this run if it throws: the processor records the failure for good. */
  finalAttempt: boolean;
}

export type JobProcessor<N extends JobName> = (payload: JobPayloads[N], attempt: JobAttempt) => Promise<void>;
export type JobProcessors = { [N in JobName]: JobProcessor<N> };

/** Where domain code sends background work: BullMQ in cluster mode, this process in single-node mode. */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void>;
  close(): Promise<void>;
}
