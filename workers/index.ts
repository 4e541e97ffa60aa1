#!/usr/bin/env node
import { ConfigError, loadConfig, loadDotEnv } from '../config/env';
import { closeContext, openContext } from '../src/context';
import { createLogger } from '../src/logger';

/**
 * The worker process (cluster mode): runs background jobs from BullMQ so web nodes stay responsive.
 * In single-node mode (no REDIS_URL) the web process runs every job itself and no worker is needed.
 * Processors are registered here as their capabilities land (indexing, crawling, web push, reminders).
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const logger = createLogger(config.logLevel).child({ process: 'worker' });
  if (config.singleNode) {
    throw new ConfigError('REDIS_URL is not set: in single-node mode the web process runs background jobs itself; start only `npm start`.');
  }
  const ctx = await openContext(config, logger);
  logger.info('worker ready');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'worker shutting down');
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
