import { loadConfig } from '../../config/env';
import { closeContext, openContext, type AppContext } from '../../src/context';
import { createLogger } from '../../src/logger';
import { startActorSystem, type ActorSystem } from '../../src/actors/system';
import type { AnyBehaviour } from '../../src/actors/runtime/host';
import { APP_KEY } from './resources';

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
  try {
    const actors = await startActorSystem(ctx, behaviours, options);
    return {
      ctx,
      actors,
      async close() {
        await actors.close();
        await closeContext(ctx);
      },
    };
  } catch (error) {
    await closeContext(ctx);
    throw error;
  }
}
