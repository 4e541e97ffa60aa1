import type { Logger } from 'pino';
import type { Config } from '../../config/env';
import type { AppContext } from '../context';
import { connectDatabase } from '../db/connect';
import { migrate } from '../db/migrate';
import { NodeLock } from '../db/nodeLock';
import { LoginLockout } from '../domain/accounts/loginLockout';
import { BullJobQueue } from '../jobs/bullQueue';
import { InProcessJobQueue } from '../jobs/inProcessQueue';
import { limiterFactory } from '../limits/limiters';
import { Metrics } from '../ops/metrics';
import type { ReadinessCheck } from '../readiness';
import { connectRedis } from '../redis';
import { forgetSettingsEpoch, shareSettingsEpoch } from '../db/settingsEpoch';
import { SecretBox } from '../security/encryption';
import { JOB_KINDS } from './jobs';

/** Opens what every process needs: the database (its lock, and migrations in embedded mode), Redis, the job queue, metrics. */
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
    if (redis) shareSettingsEpoch(redis, config.redisPrefix, logger);
    const limiters = limiterFactory(redis, config.redisPrefix);
    const readiness: ReadinessCheck[] = [{ name: 'database', check: async () => void (await db.sequelize.query('SELECT 1')) }];
    if (redis) readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });
    if (nodeLock) readiness.push(nodeLock.readiness);
    const jobs = config.redisUrl ? new BullJobQueue(config.redisUrl, config.redisPrefix, JOB_KINDS) : new InProcessJobQueue(logger, JOB_KINDS);
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
  if (ctx.redis) forgetSettingsEpoch(ctx.redis);
  await ctx.redis?.quit().catch(() => ctx.redis?.disconnect());
  // Before the database closes: an embedded server stopping would otherwise look like a lost lock to take again.
  await ctx.nodeLock?.release();
  await ctx.db.close();
}
