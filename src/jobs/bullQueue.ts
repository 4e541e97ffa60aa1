import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { JOB_POLICIES, jobIdOf, type JobName, type JobPayloads, type JobProcessor, type JobProcessors, type JobQueue } from './definitions';

type AnyPayload = JobPayloads[JobName];

/** BullMQ connections: their own, with `maxRetriesPerRequest: null` as BullMQ requires for workers. */
class Connections {
  private readonly open: Redis[] = [];
  constructor(private readonly redisUrl: string) {}
  next(name: string): Redis {
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: null, connectionName: `parley:${name}` });
    redis.on('error', () => undefined); // BullMQ reconnects and reports through its own events
    this.open.push(redis);
    return redis;
  }
  async close(): Promise<void> {
    await Promise.all(this.open.map((redis) => redis.quit().catch(() => redis.disconnect())));
  }
}

/** Cluster mode, producing side (web nodes): jobs go to BullMQ and any worker process runs them. */
export class BullJobQueue implements JobQueue {
  private readonly connections: Connections;
  private readonly queues = new Map<string, Queue<AnyPayload>>();
  private readonly prefix: string;

  constructor(redisUrl: string, redisPrefix: string) {
    this.connections = new Connections(redisUrl);
    this.prefix = `${redisPrefix}bull`;
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
  const connections = new Connections(redisUrl);
  const names = Object.keys(processors) as JobName[];
  const workers = names.map((name) => {
    const process = processors[name] as JobProcessor<JobName>;
    const worker = new Worker<AnyPayload>(
      name,
      async (job) => {
        const attempt = job.attemptsMade + 1;
        await process(job.data, { attempt, finalAttempt: attempt >= (job.opts.attempts ?? 1) });
      },
      { connection: connections.next(`worker-${name}`), prefix: `${redisPrefix}bull`, concurrency: JOB_POLICIES[name].concurrency },
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
