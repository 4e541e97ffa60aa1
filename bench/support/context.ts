import { loadConfig } from '../../config/env';
import { closeContext, openContext } from '../../src/boot/openContext';
import type { AppContext } from '../../src/context';
import { createLogger } from '../../src/logger';
import { SHARD_COUNT } from '../../src/actors/cluster/shards';
import { startActorSystem, type ActorSystem } from '../../src/actors/system';
import type { AnyBehaviour } from '../../src/actors/runtime/host';
import { APP_KEY, benchDatabase } from './resources';

export interface BenchSystem {
  ctx: AppContext;
  actors: ActorSystem;
  close(): Promise<void>;
}

/**
 * An actor system in this process, built the way web.ts builds one (openContext + startActorSystem)
 * but from an explicit environment, never the developer's. With REDIS_URL it joins that cluster
 * (as an observer when `observer` is set); without it, it is a single-node system.
 */
export async function benchSystem(env: Record<string, string>, behaviours: readonly AnyBehaviour[], options: { observer?: boolean; idleMs?: number } = {}): Promise<BenchSystem> {
  const config = loadConfig({ APP_KEY, NODE_ID: 'bench', LOG_LEVEL: 'silent', ...env });
  const ctx = await openContext(config, createLogger('silent'));
  let actors: ActorSystem | undefined;
  const close = async () => {
    await actors?.close();
    await closeContext(ctx);
  };
  try {
    actors = await startActorSystem(ctx, behaviours, options);
    // A single-node system may return before it serves its shards (placement retries in the background
    // when the first fence bump fails): measuring then would time 503s, so wait or fail loudly.
    if (!config.redisUrl) await servingAll(actors);
    return { ctx, actors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function servingAll(actors: ActorSystem, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (actors.ownedShards().length < SHARD_COUNT) {
    if (Date.now() > until) throw new Error(`single-node system serves ${actors.ownedShards().length} of ${SHARD_COUNT} shards after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A context (no Redis, no actors) on a fresh, migrated bench database, closed when `work` ends. */
export async function withBenchDatabase<T>(label: string, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await openContext(loadConfig({ DATABASE_URL: await benchDatabase(label), APP_KEY, LOG_LEVEL: 'silent' }), createLogger('silent'));
  try {
    return await work(ctx);
  } finally {
    await closeContext(ctx);
  }
}
