import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/env';
import { connectDatabase, type Database } from './db/connect';
import { migrate } from './db/migrate';
import { NodeLock } from './db/nodeLock';
import { limiterFactory, type LimiterFactory } from './http/rateLimit';
import { LoginLockout } from './domain/accounts/loginLockout';
import { BullJobQueue } from './jobs/bullQueue';
import type { JobQueue } from './jobs/definitions';
import { InProcessJobQueue } from './jobs/inProcessQueue';
import { Metrics } from './ops/metrics';
import { connectRedis } from './redis';
import { SecretBox } from './security/encryption';

/** A named dependency /readyz reports on; `check` throws when it is not ready. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** The process-wide services every surface, actor and job is handed. Built once at start, closed once at stop. */
export interface AppContext {
  config: Readonly<Config>;
  logger: Logger;
  db: Database;
  redis?: Redis;
  secrets: SecretBox;
  limiters: LimiterFactory;
  lockout: LoginLockout;
  readiness: ReadinessCheck[];
  /** Background work: BullMQ in cluster mode (a worker process runs it), this process in single-node mode. */
  jobs: JobQueue;
  /** The process's one metrics registry; domain code records into it, `/metrics` serves it. */
  metrics: Metrics;
  /** Web processes only: this process's claim on the database (src/db/nodeLock.ts). */
  nodeLock?: NodeLock;
}

export async function openContext(
  config: Readonly<Config>,
  logger: Logger,
  options: { redis?: boolean; migrateEmbedded?: boolean; nodeLock?: boolean } = {},
): Promise<AppContext> {
  const db = await connectDatabase(config, logger);
  let nodeLock: NodeLock | undefined;
  try {
    // Before anything writes (migrations, shard fences, the demo): a second single node on this
    // database, or a single node beside cluster nodes, would fence the running ones out of their shards.
    if (options.nodeLock) nodeLock = await NodeLock.take(db.url, config.singleNode ? 'single-node' : 'cluster', logger);
    // Embedded mode has no release phase, so the web process migrates; elsewhere `parley migrate` does.
    if (options.migrateEmbedded && config.embeddedDatabase) await migrate(db.sequelize, logger);
    const redis = options.redis !== false && config.redisUrl ? await connectRedis(config.redisUrl, logger) : undefined;
    const limiters = limiterFactory(redis, config.redisPrefix);
    const readiness: ReadinessCheck[] = [{ name: 'database', check: async () => void (await db.sequelize.query('SELECT 1')) }];
    if (redis) readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });
    if (nodeLock) readiness.push(nodeLock.readiness);
    const jobs = config.redisUrl ? new BullJobQueue(config.redisUrl, config.redisPrefix) : new InProcessJobQueue(logger);
    const metrics = new Metrics();
    metrics.watchQueues(jobs);
    return { config, logger, db, redis, secrets: new SecretBox(config.appKey), limiters, lockout: new LoginLockout(limiters), readiness, jobs, metrics, nodeLock };
  } catch (error) {
    await nodeLock?.release();
    await db.close();
    throw error;
  }
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.jobs.close();
  await ctx.redis?.quit().catch(() => ctx.redis?.disconnect());
  // Before the database closes: an embedded server stopping would otherwise look like a lost lock to take again.
  await ctx.nodeLock?.release();
  await ctx.db.close();
}
