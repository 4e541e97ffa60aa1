import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../config/env';
import { closeContext, openContext } from '../../src/boot/openContext';
import type { AppContext } from '../../src/context';
import { createLogger } from '../../src/logger';
import type { Chatbot } from '../../src/models';
import { defer } from './cleanup';
import { benchChatbot } from './corpus';
import { startLogged } from './processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './resources';
import { streamAgent } from './webNode';
import type { Target } from './sseClient';

const PROVIDER_MAIN = resolve(__dirname, 'tokenProviderMain.js');

export interface StreamBench {
  ctx: AppContext;
  bot: Chatbot;
  /** What a web node runs with: this bench's database and Redis prefix, the platform key aimed at the bench provider. */
  nodeEnv: Record<string, string>;
  provider: { pid: number; target: Target };
  redisPid: number | undefined;
}

/**
 * A fresh database and Redis prefix, one workspace on the unlimited plan (no allowance stops a run)
 * with one chatbot on the default provider (openai), and the bench provider in its own process. The
 * platform key (PROVIDER_OPENAI_API_KEY) makes the chatbot's provider calls go to it.
 */
export async function streamBench(label: string): Promise<StreamBench> {
  const databaseUrl = await benchDatabase(label);
  const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix(label), APP_KEY };
  const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
  defer('close the bench context', () => closeContext(ctx));
  const bot = await benchChatbot(ctx, `Stream bench ${label}`);

  const { running } = startLogged(PROVIDER_MAIN, 'bench provider', {});
  const listening = await running.waitForLog((entry) => entry.msg === 'listening', 20_000);
  const url = new URL(String(listening.url));
  const agent = streamAgent();
  defer('close provider client sockets', () => agent.destroy());
  return {
    ctx,
    bot,
    nodeEnv: { ...env, PROVIDER_OPENAI_BASE_URL: `${url.origin}/v1`, PROVIDER_OPENAI_API_KEY: 'sk-bench-platform-key' },
    provider: { pid: running.child.pid!, target: { host: url.hostname, port: Number(url.port), agent } },
    redisPid: await redisPid(),
  };
}

/** Redis's own process, to meter its CPU (it may be elsewhere, or not ours to read: then undefined). */
async function redisPid(): Promise<number | undefined> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  try {
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } finally {
    redis.disconnect();
  }
}
