#!/usr/bin/env node
import { ConfigError, loadConfig, loadDotEnv } from '../config/env';
import { createLogger } from './logger';
import { startWeb } from './web';

/** The web process: HTTP surfaces and this node's share of the actors. */
async function main(): Promise<void> {
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const web = await startWeb(config, logger);

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'signal received');
    web.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`parley: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
