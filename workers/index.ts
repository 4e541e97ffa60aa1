#!/usr/bin/env node
import { ConfigError, loadConfig, loadDotEnv } from '../config/env';
import { JOB_KINDS, jobProcessors } from '../src/boot/jobs';
import { closeContext, openContext } from '../src/boot/openContext';
import { requeuePendingSources } from '../src/domain/knowledge/indexJob';
import { startDeliverySweep } from '../src/domain/webhooks/sweep';
import { startBullWorkers } from '../src/jobs/bullQueue';
import { createLogger } from '../src/logger';
import { startOpsServer } from '../src/ops/opsServer';

/**
 * The worker process (cluster mode): runs background jobs from BullMQ so web nodes stay responsive:
 * knowledge indexing, web push (fan-out and delivery; docs/push.md) and webhook deliveries (docs/webhooks.md). With WORKER_PORT set it also
 * answers /healthz, /readyz and /metrics there.
 * In single-node mode (no REDIS_URL) the web process runs every job itself and no worker is needed.
 * Reminders are not here: every web node delivers them (docs/cluster.md).
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const logger = createLogger(config.logLevel).child({ process: 'worker' });
  if (config.singleNode) {
    throw new ConfigError('REDIS_URL is not set: in single-node mode the web process runs background jobs itself; start only `npm start`.');
  }
  const ctx = await openContext(config, logger);
  // Before any job is taken, so a port already in use stops the worker at start.
  const ops = config.workerPort === undefined ? undefined : await startOpsServer(ctx, config.workerPort);
  const workers = await startBullWorkers(config.redisUrl!, config.redisPrefix, JOB_KINDS, jobProcessors(ctx), logger);
  const requeued = await requeuePendingSources(ctx);
  // Webhook retries are due by time (`next_attempt_at`), not by a queued job: every worker looks for them.
  const sweep = startDeliverySweep(ctx);
  // Push jobs exist only where web nodes have VAPID keys; a worker without them would drop what it is given.
  logger.info({ requeued, push: config.vapid ? 'configured' : 'not configured', port: ops?.port }, 'worker ready');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'worker shutting down');
    // Running jobs finish first (BullMQ's close waits for them); unfinished ones return to the queue.
    await sweep.close();
    await workers.close();
    await ops?.close();
    await closeContext(ctx);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`parley worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
