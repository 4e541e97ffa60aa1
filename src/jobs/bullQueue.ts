import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { BullConnections, bullPrefix } from './bullConnections';
import { JOB_POLICIES, jobIdOf, type JobName, type JobPayloads, type JobProcessor, type JobProcessors, type JobQueue } from './definitions';

type AnyPayload = JobPayloads[JobName];

/** Cluster mode, producing side (web nodes): jobs go to BullMQ and any worker process runs them. */
export class BullJobQueue implements JobQueue {
  private readonly connections: BullConnections;
  private readonly queues = new Map<string, Queue<AnyPayload>>();
  private readonly prefix: string;

  constructor(redisUrl: string, redisPrefix: string) {
    this.connections = new BullConnections(redisUrl);
    this.prefix = bullPrefix(redisPrefix);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    const policy = JOB_POLICIES[name];
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue<AnyPayload>(name, { connection: this.connections.next(`queue-${name}`), prefix: this.prefix });
      this.queues.set(name, queue);
    }
    await queue.add(name, payload, {
      jobId: jobIdOf[name](payload),
      attempts: policy.attempts,
      backoff: { type: 'exponential', delay: policy.backoffMs },
      // Outcomes live on the records themselves; removing finished jobs lets the same work be asked for again.
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connections.close();
  }
}

/** Cluster mode, consuming side (`workers/`): one BullMQ worker per queue, running the processors. */
export async function startBullWorkers(
  redisUrl: string,
  redisPrefix: string,
  processors: JobProcessors,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  const connections = new BullConnections(redisUrl);
  const names = Object.keys(processors) as JobName[];
  const workers = names.map((name) => {
    const process = processors[name] as JobProcessor<JobName>;
    const worker = new Worker<AnyPayload>(
      name,
      async (job) => {
        const attempt = job.attemptsMade + 1;
        await process(job.data, { attempt, finalAttempt: attempt >= (job.opts.attempts ?? 1) });
      },
      { connection: connections.next(`worker-${name}`), prefix: bullPrefix(redisPrefix), concurrency: JOB_POLICIES[name].concurrency },
    );
    worker.on('failed', (job, error) => logger.warn({ err: error, job: job?.id, attempts: job?.attemptsMade }, 'job failed'));
    worker.on('error', (error) => logger.warn({ err: error }, 'job worker error'));
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
