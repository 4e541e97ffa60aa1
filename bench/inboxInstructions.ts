import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { idleWindows, instructions, SLOW_CLUSTER, underCallgrind, windowedInstructions, type Counted } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { httpTarget, timedGet, type HttpTarget } from './support/inboxHttp';
import { seedInbox } from './support/inboxSeed';
import { childEnv } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import { runScript } from './support/runScript';
import { middleMedian } from './support/stats';

/**
 * Instructions per `GET /api/agent/inbox` list response, counted by valgrind's callgrind, A/B: the
 * same count whatever else runs on the machine (the inbox bench's node CPU per response moves with
 * the load). Per build (INBOX_ROOTS, comma-separated checkouts with dist built; default this one), one
 * web node (cluster mode on Redis, LOG_LEVEL=info, as `inbox` runs it) under callgrind on its own
 * database seeded as the inbox bench seeds it, but smaller (INBOX_CONVERSATIONS, default 5,000, and
 * one neighbour workspace): a list response is the same work at any size (one prepared statement, 60
 * rows, the counts from `inbox_counts`). Warmed uncounted, then per scenario requests one at a time,
 * windows of INBOX_PER_WINDOW (10) requests, a dump before the first is written and another when the
 * last one's last byte is read (windowedInstructions): per response, the median window less the
 * median idle window's rate for its length, over its requests; for the JavaScript thread
 * (`main_thread`, less V8's worker threads) and all threads. `GET /healthz` through the same node is
 * the generic stack's baseline. Usage (after `npm run build`):
 * `node dist/bench/inboxInstructions.js [windows]`; needs valgrind. INBOX_KEEP=<dir> keeps each
 * window's dump there for callgrind_annotate. One JSON line per build.
 */
const WARM = Number(process.env.INBOX_WARM ?? 400);
const IDLE_WINDOW_MS = 1_000;
/** Requests per window, one at a time: the node's background (about 2 M instructions a second under callgrind) is then a small share of a window. */
const PER_WINDOW = Number(process.env.INBOX_PER_WINDOW ?? 10);
const SCENARIOS = { all: '/api/agent/inbox', waiting: '/api/agent/inbox?filter=waiting', healthz: '/healthz' } as const;
type Scenario = keyof typeof SCENARIOS;

async function get(target: HttpTarget, path: string, headers: Record<string, string>): Promise<number> {
  const answer = await timedGet(target, path, headers);
  if (answer.status !== 200) throw new Error(`${path}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
  return Buffer.byteLength(answer.body);
}

async function measure(node: Counted, target: HttpTarget, auth: Record<string, string>, requests: number, keep: string | undefined, label: string) {
  const bytes: Partial<Record<Scenario, number>> = {};
  for (const scenario of Object.keys(SCENARIOS) as Scenario[]) bytes[scenario] = await get(target, SCENARIOS[scenario], scenario === 'healthz' ? {} : auth);
  const idle = await idleWindows(node, requests, IDLE_WINDOW_MS);
  const idleRate = (of: 'ir' | 'mainIr') => middleMedian(idle.each.map((w) => w[of] / w.seconds));
  const figures: Record<string, unknown> = {};
  for (const scenario of Object.keys(SCENARIOS) as Scenario[]) {
    const headers = scenario === 'healthz' ? {} : auth;
    const windows = await windowedInstructions(
      node,
      async (open, close) => {
        for (let n = 0; n < requests; n++) {
          open();
          for (let k = 0; k < PER_WINDOW; k++) await get(target, SCENARIOS[scenario], headers);
          close();
        }
      },
      keep && resolve(keep, `${label}-${scenario}.out`),
    );
    const of = (count: 'ir' | 'mainIr') => Math.round(middleMedian(windows.each.map((w) => w[count] - idleRate(count) * w.seconds)) / PER_WINDOW);
    figures[scenario] = {
      main_thread: of('mainIr'),
      all_threads: of('ir'),
      main_thread_with_idle: Math.round(middleMedian(windows.each.map((w) => w.mainIr)) / PER_WINDOW),
      window_seconds: Number(middleMedian(windows.each.map((w) => w.seconds)).toFixed(2)),
      body_bytes: bytes[scenario],
    };
  }
  return { idle_main_per_s: Math.round(idleRate('mainIr')), ...figures };
}

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 15);
  const roots = (process.env.INBOX_ROOTS ?? resolve(__dirname, '../..')).split(',');
  const conversations = Number(process.env.INBOX_CONVERSATIONS ?? 5_000);
  const keep = process.env.INBOX_KEEP;
  await scoped(async () => {
    const databaseUrl = await benchDatabase('inboxinstr');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('inboxinstr'), APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const workspace = await seedInbox(ctx, conversations, { workspaces: 1, conversations: 1_000 });
    const auth = { authorization: `Bearer ${workspace.token}` };
    for (const [index, root] of roots.entries()) {
      const node = await underCallgrind(resolve(root, 'dist/test/support/cluster/nodeMain.js'), childEnv({ ...env, NODE_ID: `ii-${index}`, PORT: '0', LOG_LEVEL: 'info', ...SLOW_CLUSTER }));
      const target = httpTarget(node.port, 1);
      defer('close client sockets', () => target.agent.destroy());
      // Warm, uncounted: every scenario, so the optimizing compiler has settled on the path.
      for (let n = 0; n < WARM; n++) for (const scenario of Object.keys(SCENARIOS) as Scenario[]) await get(target, SCENARIOS[scenario], scenario === 'healthz' ? {} : auth);
      await instructions(node, () => sleep(2_000));
      const figures = await measure(node, target, auth, requests, keep, `b${index}`);
      process.stdout.write(`${JSON.stringify({ root, conversations, windows: requests, per_window: PER_WINDOW, warm: WARM, ...figures })}\n`);
      node.child.kill('SIGKILL');
      target.agent.destroy();
    }
  });
}

runScript(main);
