import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { throttledWarn } from '../../logger';
import { BullConnections, bullPrefix } from '../../jobs/bullConnections';
import type { UntypedMessage } from './protocol';
import { reminderId, type ReminderDelivery, type Reminders } from './reminders';

interface ReminderJob {
  kind: string;
  id: string;
  message: UntypedMessage;
}

const QUEUE = 'reminders';

/**
 * Cluster mode: reminders are delayed BullMQ jobs with deterministic ids, so they survive any node's
 * death and one (actor, key) is never scheduled twice. Every web node runs the delivering worker; a
 * failed delivery (owner moving, Redis blip) is retried with backoff and deduplicated by the actor.
 */
export class BullReminders implements Reminders {
  private readonly queue: Queue<ReminderJob>;
  private readonly worker: Worker<ReminderJob>;
  private readonly connections: BullConnections;

  constructor(redisUrl: string, redisPrefix: string, deliver: ReminderDelivery, logger: Logger) {
    this.connections = new BullConnections(redisUrl);
    const prefix = bullPrefix(redisPrefix);
    this.queue = new Queue(QUEUE, { connection: this.connections.next('reminders'), prefix });
    this.worker = new Worker<ReminderJob>(
      QUEUE,
      async (job) => deliver(job.data.kind, job.data.id, job.data.message, `${job.id}|${job.timestamp}`),
      { connection: this.connections.next('reminders'), prefix, concurrency: 16 },
    );
    this.worker.on('failed', (job, error) => logger.warn({ err: error, reminder: job?.id, attempts: job?.attemptsMade }, 'reminder delivery failed'));
    // Each failed reconnect while Redis is away is reported; a few lines a minute say as much.
    const warnWorkerError = throttledWarn();
    this.worker.on('error', (error) => warnWorkerError(logger, { err: error }, 'reminder worker error'));
  }

  async schedule(kind: string, id: string, message: UntypedMessage, { key, delayMs }: { key: string; delayMs: number }): Promise<void> {
    const jobId = reminderId(kind, id, key);
    await this.queue.remove(jobId);
    await this.queue.add(QUEUE, { kind, id, message }, {
      jobId,
      delay: Math.max(0, delayMs),
      attempts: 8,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: true,
      removeOnFail: { count: 1000 },
    });
  }

  async cancel(kind: string, id: string, key: string): Promise<void> {
    await this.queue.remove(reminderId(kind, id, key));
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
    await this.connections.close();
  }
}
