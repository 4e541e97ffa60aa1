import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { Running } from '../test/support/processes';
import { cleanupAll, defer, scoped } from './support/cleanup';
import { threadCpuNs } from './support/cpu';
import { syscallCounts } from './support/syscalls';
import { benchChatbot } from './support/corpus';
import { backendCpuBetween, databaseBackends } from './support/databaseBackends';
import { loadNow, NODE_CORE, pin, pinSelf, pinServices } from './support/pinning';
import { childEnv, forgetLogs } from './support/processes';
import { adminQuery, APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';

/**
 * Arrivals only, A/B: one web node per build (ARR_ROOTS, comma-separated checkouts with their dist
 * built), each on its own database and Redis prefix, all pinned to the node core and idle but for the
 * one being measured; phases of ARR_N first heartbeats alternate between them. Per arrival: the
 * node's CPU (schedstat, every thread), its database backends' CPU, and Postgres transactions and
 * rows (pg_stat_database). A tool for deciding a change, not a reported benchmark.
 *
 * Run (after `npm run build`): `node dist/bench/arrivalsAb.js`, with ARR_ROOTS=/old/checkout,/new/checkout
 * (default: this one), ARR_N (arrivals per phase, 3,000), ARR_WARM (2,000, not measured), ARR_ROUNDS
 * (3), ARR_AGAIN=1 (also every visitor's second beat), ARR_PROF=<dir> (the nodes run with --cpu-prof;
 * the measured phases' monotonic windows go to stderr as `window <pid> <from us> <to us> <kind>`),
 * BENCH_PIN_SERVICES=1 as for the other benches.
 */
const CONCURRENCY = 64;
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

interface Side {
  root: string;
  pid: number;
  port: number;
  agent: Agent;
  key: string;
  database: string;
  next: number;
}

function beat(side: Side, i: number): Promise<number> {
  const body = JSON.stringify({ visitor_id: `ab-visitor-${i}`, url: 'https://shop.example/products/0', title: 'Product 0', referrer: 'https://www.google.com/' });
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: side.port,
        path: `/widget/${side.key}/heartbeat`,
        method: 'POST',
        agent: side.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': ip, 'user-agent': UA, 'cf-ipcountry': 'DE' },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

async function stats(database: string): Promise<{ xact: number; inserted: number; returned: number }> {
  const [row] = await adminQuery<{ xact: string; inserted: string; returned: string }>(
    `SELECT xact_commit + xact_rollback AS xact, tup_inserted AS inserted, tup_returned + tup_fetched AS returned FROM pg_stat_database WHERE datname = '${database}'`,
  );
  return { xact: Number(row!.xact), inserted: Number(row!.inserted), returned: Number(row!.returned) };
}

async function arrivals(side: Side, n: number, again = false): Promise<{ perS: number; nodeUs: number; pgUs: number; xact: number; inserted: number; reads: number; writes: number; driverUs: number }> {
  await new Promise((r) => setTimeout(r, 1200)); // stats are flushed at most once a second
  const s0 = await stats(side.database);
  const b0 = databaseBackends(side.database);
  const c0 = threadCpuNs(side.pid);
  const io0 = syscallCounts(side.pid);
  const driver0 = process.cpuUsage();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const start = performance.now();
  const first = again ? side.next - n : side.next;
  let cursor = first;
  const until = first + n;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = cursor++; i < until; i = cursor++) {
        const status = await beat(side, i);
        if (status !== 200) throw new Error(`arrival answered ${status}`);
      }
    }),
  );
  side.next = Math.max(side.next, until);
  process.stderr.write(`window ${side.pid} ${fromUs} ${Number(process.hrtime.bigint() / 1000n)} ${again ? 'beat' : 'arrival'}\n`);
  const seconds = (performance.now() - start) / 1000;
  const nodeUs = (threadCpuNs(side.pid) - c0) / 1000 / n;
  const io1 = syscallCounts(side.pid);
  const driver = process.cpuUsage(driver0);
  const pgUs = (1e6 * backendCpuBetween(b0, databaseBackends(side.database))) / n;
  await new Promise((r) => setTimeout(r, 1200));
  const s1 = await stats(side.database);
  return {
    perS: n / seconds,
    nodeUs,
    pgUs,
    xact: (s1.xact - s0.xact) / n,
    inserted: (s1.inserted - s0.inserted) / n,
    reads: io0 && io1 ? (io1.reads - io0.reads) / n : NaN,
    writes: io0 && io1 ? (io1.writes - io0.writes) / n : NaN,
    driverUs: (driver.user + driver.system) / n,
  };
}

async function main(): Promise<void> {
  const roots = (process.env.ARR_ROOTS ?? resolve(__dirname, '../..')).split(',');
  const n = Number(process.env.ARR_N ?? 3000);
  const warm = Number(process.env.ARR_WARM ?? 2000);
  const rounds = Number(process.env.ARR_ROUNDS ?? 3);
  const prof = process.env.ARR_PROF;
  await scoped(async () => {
    pinSelf();
    pinServices();
    const sides: Side[] = [];
    for (const [index, root] of roots.entries()) {
      const databaseUrl = await benchDatabase(`arrab${index}`);
      const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix(`arrab${index}`), APP_KEY };
      const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
      const bot = await benchChatbot(ctx, `Arrivals ${index}`);
      await closeContext(ctx);
      const main = resolve(root, 'dist/test/support/cluster/nodeMain.js');
      const flags = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
      const [first, ...rest] = [...flags, main];
      const running = new Running(first!, rest, { env: childEnv({ ...env, NODE_ID: `ab-${index}`, PORT: '0', LOG_LEVEL: 'info' }) });
      defer(`stop node ${index}`, async () => {
        running.child.kill('SIGTERM');
        if (!(await running.exitWithin(20_000))) running.child.kill('SIGKILL');
      });
      const listening = await running.waitForLog((entry) => entry.msg === 'listening', 60_000);
      await running.waitForLog((entry) => entry.msg === 'control listening', 10_000);
      forgetLogs(running);
      pin(running.child.pid!, NODE_CORE);
      const side: Side = { root, pid: running.child.pid!, port: Number(listening.port), agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }), key: bot.publicKey, database: new URL(databaseUrl).pathname.slice(1), next: 0 };
      defer('close sockets', () => side.agent.destroy());
      for (let tries = 0; (await beat(side, side.next)) !== 200; tries++) {
        if (tries > 200) throw new Error('never answered');
        await new Promise((r) => setTimeout(r, 100));
      }
      side.next++;
      sides.push(side);
    }
    for (const side of sides) await arrivals(side, warm);
    const rows: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const [index, side] of sides.entries()) {
        const load = loadNow();
        const m = await arrivals(side, n);
        const line = `round ${r} side ${index} (${side.root}): ${Math.round(m.perS)}/s node ${Math.round(m.nodeUs)} us pg ${Math.round(m.pgUs)} us xact ${m.xact.toFixed(3)} rows ${m.inserted.toFixed(2)} syscalls r ${m.reads.toFixed(2)} w ${m.writes.toFixed(2)} driver ${Math.round(m.driverUs)} us per arrival; load ${load}`;
        rows.push(line);
        process.stdout.write(`${line}\n`);
        if (process.env.ARR_AGAIN) {
          const b = await arrivals(side, n, true);
          process.stdout.write(`round ${r} side ${index} second beats: node ${Math.round(b.nodeUs)} us pg ${Math.round(b.pgUs)} us xact ${b.xact.toFixed(3)}\n`);
        }
      }
    }
  });
  await cleanupAll();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    void cleanupAll().finally(() => process.exit(1));
  },
);
