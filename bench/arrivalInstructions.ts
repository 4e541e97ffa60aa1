import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { instructions, SLOW_CLUSTER, underCallgrind } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { benchChatbot } from './support/corpus';
import { childEnv } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import { runScript } from './support/runScript';

/**
 * Instructions per arrival (a new visitor's first heartbeat, from an address the node has not seen),
 * counted by valgrind's callgrind, A/B: the same count whatever else runs on the machine, where CPU
 * time per arrival moves by a third between runs. Per build (ARR_ROOTS, comma-separated checkouts
 * with dist built; default this one), one web node (cluster mode on Redis, as `heartbeats` runs it)
 * on its own database under callgrind, instrumentation off until the measured phase: warm-up
 * arrivals, an idle phase (its count per second is taken off), then `arrivals` new visitors, closed
 * loop, and what they leave for later (write-behind, collections). As bench/beatInstructions.ts does
 * for later beats (docs/performance.md, "Arrivals, fifth round"). Usage (after `npm run build`):
 * `node dist/bench/arrivalInstructions.js [arrivals]` (ARR_WARM: arrivals before, 600); needs valgrind. One JSON line per build,
 * with the main thread's count apart (the JavaScript, without V8's background compiler and marking).
 */
const IN_FLIGHT = 16;
/** Arrivals before the counted ones (ARR_WARM): under callgrind, code still being compiled after a few hundred. */
const WARM = Number(process.env.ARR_WARM ?? 600);
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const SETTLE_MS = 5_000;
const IDLE_MS = 20_000;
/** Visitor i's first heartbeat, from its own address, as `heartbeats` and bench/arrivalsAb.ts send it. */
function arrive(agent: Agent, port: number, key: string, i: number): Promise<number> {
  const body = JSON.stringify({ visitor_id: `ai-visitor-${i}`, url: 'https://shop.example/products/0', title: 'Product 0', referrer: 'https://www.google.com/' });
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/widget/${key}/heartbeat`,
        method: 'POST',
        agent,
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

async function arrivals(from: number, count: number, fire: (i: number) => Promise<number>): Promise<number> {
  let next = from;
  let failed = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < from + count; i = next++) if ((await fire(i)) !== 200) failed++;
    }),
  );
  return failed;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000);
  const roots = (process.env.ARR_ROOTS ?? resolve(__dirname, '../..')).split(',');
  await scoped(async () => {
    for (const [index, root] of roots.entries()) {
      const databaseUrl = await benchDatabase(`arrinstr${index}`);
      const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix(`arrinstr${index}`), APP_KEY };
      const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
      const bot = await benchChatbot(ctx, `Arrival instructions ${index}`);
      await closeContext(ctx);
      const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
      defer('close client sockets', () => agent.destroy());
      const node = await underCallgrind(resolve(root, 'dist/test/support/cluster/nodeMain.js'), childEnv({ ...env, NODE_ID: `ai-${index}`, PORT: '0', LOG_LEVEL: 'info', ...SLOW_CLUSTER }));
      for (let tries = 0; (await arrive(agent, node.port, bot.publicKey, 0)) !== 200; tries++) {
        if (tries > 600) throw new Error('the node never answered a heartbeat');
        await sleep(200);
      }
      const fire = (i: number) => arrive(agent, node.port, bot.publicKey, i);
      await arrivals(1, WARM, fire);
      await sleep(SETTLE_MS);
      const idle = await instructions(node, () => sleep(IDLE_MS));
      let failed = 0;
      const counted = await instructions(node, async () => {
        failed = await arrivals(1 + WARM, count, fire);
        await sleep(SETTLE_MS);
      });
      const lessIdle = (counted.ir - (idle.ir / idle.seconds) * counted.seconds) / count;
      const mainLessIdle = (counted.mainIr - (idle.mainIr / idle.seconds) * counted.seconds) / count;
      process.stdout.write(
        `${JSON.stringify({ root, arrivals: count, instructions_per_arrival: Math.round(counted.ir / count), instructions_per_arrival_less_idle: Math.round(lessIdle), main_thread_per_arrival: Math.round(counted.mainIr / count), main_thread_per_arrival_less_idle: Math.round(mainLessIdle), warm: WARM, idle_instructions_per_s: Math.round(idle.ir / idle.seconds), seconds: Number(counted.seconds.toFixed(1)), failed })}\n`,
      );
      node.child.kill('SIGKILL');
    }
  });
}

runScript(main);
