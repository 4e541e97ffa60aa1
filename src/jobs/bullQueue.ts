import { Queue, Worker, type BackoffOptions, type KeepJobs } from 'bullmq';
import type { Logger } from 'pino';
import { throttledWarn } from '../logger';
import { BullConnections, bullPrefix } from './bullConnections';
import type { JobKinds, JobName, JobPayloads, JobPolicy, JobProcessor, JobProcessors, JobQueue, QueueDepth, QueueDepths } from './definitions';
import { retryDelayMs } from './retryAfter';

type AnyPayload = JobPayloads[JobName];

/**
 * Parley's backoff (`retryDelayMs`): exponential, unless the processor threw `RetryAfter`. Jobs name
 * it as a custom strategy, which BullMQ asks the worker's `backoffStrategy` for.
 */
const BACKOFF_TYPE = 'parley';

/** Finished jobs are kept only as long as their id must keep deduplicating; their outcomes live on the records. */
const keepFinished = (policy: JobPolicy): boolean | KeepJobs => (policy.rememberDoneSeconds ? { age: policy.rememberDoneSeconds } : true);

/** Cluster mode, producing side (web nodes): jobs go to BullMQ and any worker process runs them. */
export class BullJobQueue implements JobQueue {
  private readonly connections: BullConnections;
  private readonly queues = new Map<string, Queue<AnyPayload>>();
  private readonly prefix: string;

  constructor(redisUrl: string, redisPrefix: string, private readonly kinds: JobKinds) {
    this.connections = new BullConnections(redisUrl);
    this.prefix = bullPrefix(redisPrefix);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    const { policy, idOf } = this.kinds[name];
    await this.queue(name).add(name, payload, {
      jobId: idOf(payload),
      attempts: policy.attempts,
      backoff: { type: BACKOFF_TYPE, delay: policy.backoffMs },
      // A removed job's id may be used again: the same work can then be asked for again.
      removeOnComplete: keepFinished(policy),
      removeOnFail: keepFinished(policy),
    });
  }

  /** Every kind's counts in BullMQ: the cluster's queues, the same whichever process asks. */
  async depth(): Promise<QueueDepths> {
    const names = Object.keys(this.kinds) as JobName[];
    const depths = await Promise.all(names.map(async (name): Promise<[JobName, QueueDepth]> => {
      const counts = await this.queue(name).getJobCounts('wait', 'prioritized', 'active', 'delayed');
      return [name, { waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0, delayed: counts.delayed ?? 0 }];
    }));
    return Object.fromEntries(depths) as QueueDepths;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connections.close();
  }

  private queue(name: JobName): Queue<AnyPayload> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue<AnyPayload>(name, { connection: this.connections.next(`queue-${name}`), prefix: this.prefix });
      this.queues.set(name, queue);
    }
    return queue;
  }
}

/** The first retry delay a job was queued with (its policy's at the time). */
const backoffOf = (backoff: number | BackoffOptions | undefined): number | undefined => (typeof backoff === 'number' ? backoff : backoff?.delay);

/** Cluster mode, consuming side (`workers/`): one BullMQ worker per queue, running the processors. */
export async function startBullWorkers(
  redisUrl: string,
  redisPrefix: string,
  kinds: JobKinds,
  processors: Partial<JobProcessors>,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  const connections = new BullConnections(redisUrl);
  const names = Object.keys(processors) as JobName[];
  // While Redis is away every worker reports each failed reconnect; a few lines a minute say as much.
  const warnWorkerError = throttledWarn();
  const workers = names.map((name) => {
    const process = processors[name] as JobProcessor<JobName>;
    const { backoffMs, concurrency } = kinds[name].policy;
    const worker = new Worker<AnyPayload>(
      name,
      async (job) => {
        const attempt = job.attemptsMade + 1;
        await process(job.data, { attempt, finalAttempt: attempt >= (job.opts.attempts ?? 1) });
      },
      {
        connection: connections.next(`worker-${name}`),
        prefix: bullPrefix(redisPrefix),
        concurrency,
        settings: { backoffStrategy: (attemptsMade, _type, error, job) => retryDelayMs(error, backoffOf(job?.opts.backoff) ?? backoffMs, attemptsMade) },
      },
    );
    worker.on('failed', (job, error) => logger.warn({ err: error, job: job?.id, attempts: job?.attemptsMade }, 'job failed'));
    worker.on('error', (error) => warnWorkerError(logger, { err: error }, 'job worker error'));
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  return {
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
      await connections.close();
    },
  };
}
