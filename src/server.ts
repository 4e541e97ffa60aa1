#!/usr/bin/env node
import { ConfigError, loadConfig, loadDotEnv } from '../config/env';
import { DatabaseInUse } from './db/nodeLock';
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

  const stopThenExit = (code: number) =>
    web.stop().then(
      () => process.exit(code),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'signal received');
    stopThenExit(0);
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  // Another process serves the database now: stop, non-zero, so a supervisor notices.
  void web.lost.then((error) => {
    process.stderr.write(`parley: stopping: ${error.message}\n`);
    stopThenExit(1);
  });
}

main().catch((error: unknown) => {
  // A refusal the operator acts on is a message, not a stack trace.
  const detail = error instanceof DatabaseInUse ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`parley: failed to start: ${detail}\n`);
  process.exit(1);
});
