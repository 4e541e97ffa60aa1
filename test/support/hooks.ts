import { Redis } from 'ioredis';
import { loadConfig } from '../../config/env';
import { createLogger } from '../../src/logger';
import { connectDatabase } from '../../src/db/connect';
import { migrate } from '../../src/db/migrate';
import { startWeb, type RunningWeb } from '../../src/web';
import { startFakeLlm, type FakeLlm } from './fakeLlm';
import { startFakeCommerce, type FakeCommerce } from './fakeCommerce';
import { withClient } from './pg';
import { PROBE_TABLE, probeBehaviour } from './actors/probe';
import { REDIS_URL, SHARED_SERVER_TIMINGS, TEST_DATABASE, TEST_ENV, TEST_REDIS_PREFIX } from './env';

let web: RunningWeb | undefined;
let llm: FakeLlm | undefined;
let commerce: FakeCommerce | undefined;

/** The server every integration test talks to: real HTTP on a random port, real Postgres and Redis. */
export function server(): RunningWeb {
  if (!web) throw new Error('test server not started');
  return web;
}

/**
 * The fake LLM the test server's providers point at (every slug's base URL). No platform key is set:
 * a workspace that stores a key gets the fake; one without gets the extractive responder.
 */
export function fakeLlm(): FakeLlm {
  if (!llm) throw new Error('fake LLM not started');
  return llm;
}

/** The Shopify and Stripe stand-in the test server's integrations point at (SHOPIFY_BASE_URL, STRIPE_BASE_URL). */
export function fakeCommerce(): FakeCommerce {
  if (!commerce) throw new Error('fake commerce not started');
  return commerce;
}

/** Root hooks: one fresh database per run, migrated by the real migration code, dropped afterwards. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    await withClient((client) => client.query(`CREATE DATABASE ${TEST_DATABASE}`));
    llm = await startFakeLlm();
    commerce = await startFakeCommerce();
    const config = loadConfig({ ...TEST_ENV, ...SHARED_SERVER_TIMINGS, ...llm.envFor(), ...commerce.envFor(), PROVIDER_TIMEOUT_MS: '3000', PORT: '0' });
    const logger = createLogger(config.logLevel);
    const db = await connectDatabase(config, logger);
    await migrate(db.sequelize, logger);
    await db.sequelize.query(PROBE_TABLE);
    await db.sequelize.close();
    // Idle actors passivate after 1.5 s here, so tests exercise reloading state from Postgres.
    web = await startWeb(config, logger, { behaviours: ({ ctx }) => [probeBehaviour(ctx.db.sequelize)], idleMs: 1_500 });
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await web?.stop();
    await llm?.close();
    await commerce?.close();
    await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${TEST_DATABASE} WITH (FORCE)`));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${TEST_REDIS_PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  },
};
