import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { instructions, SLOW_CLUSTER, underCallgrind } from './support/callgrind';
import { defer, scoped } from './support/cleanup';
import { benchChatbot } from './support/corpus';
import { childEnv, NODE_MAIN } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import { runScript } from './support/runScript';

/**
 * Instructions per widget heartbeat, counted by valgrind's callgrind: the same count whatever else
 * runs on the machine, so two versions of the code can be compared on a shared, loaded machine where
 * CPU time per beat moves by a third from one run to the next (docs/performance.md, "Heartbeat CPU,
 * fifth round"). One web node (cluster mode on Redis, as `heartbeats` runs it) under callgrind with
 * instrumentation off until the measured phase; known visitors beat (every one arrived and beat
 * before), closed loop; then the node idles for as long, and its idle count is taken off. The bare
 * `node:http` POST of `heartbeats` is counted the same way. Usage (after `npm run build`):
 * `node dist/bench/beatInstructions.js [beats] [visitors]`; needs valgrind. Prints one JSON line.
 * `visitors` (default 500): how many known visitors the beats go round; with thousands, each
 * beat is a different visitor's, as in `heartbeats` at full scale, where what grows with the
 * number of live visitors shows (the node's idle count too: its timers visit them).
 */
const VISITORS = Number(process.argv[3] ?? 500);
const IN_FLIGHT = 8;
/** Every visitor has arrived and beaten again before the count starts. */
const WARM_BEATS = Math.max(3_000, 2 * VISITORS);
const BARE_MAIN = resolve(__dirname, 'support/bareHttpMain.js');
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const NEW_PAGE_EVERY = 3;
const SETTLE_MS = 5_000;
/**
 * Under callgrind the node is tens of times slower, so with thousands of visitors each one's beats
 * come minutes apart: with the default 15 s interval every beat would find its visitor gone and
 * bring them back (`visitor.online`, the arrival notification), which no native run does. A long
 * interval keeps them online between beats, as at full speed.
 */
const POLL_SECONDS = '300'; // the most the configuration takes: visitors count as gone after 10 minutes
const IDLE_MS = 20_000;
function post(agent: Agent, port: number, path: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Visitor i's n-th beat, as `heartbeats` sends it: its own IP, a new page every few beats. */
function beat(agent: Agent, port: number, key: string, i: number, n: number): Promise<number> {
  const page = Math.floor(n / NEW_PAGE_EVERY);
  const body = JSON.stringify({ visitor_id: `bench-visitor-${i}`, url: `https://shop.example/products/${page}`, title: `Product ${page}`, referrer: 'https://www.google.com/' });
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return post(agent, port, `/widget/${key}/heartbeat`, body, { 'x-forwarded-for': ip, 'user-agent': UA, 'cf-ipcountry': 'DE' });
}

/** `count` requests, `IN_FLIGHT` at a time; answers other than 200 are counted (a node under callgrind can miss a database timeout). */
let failed = 0;
async function closedLoop(count: number, fire: (n: number) => Promise<number>): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let n = sent++; n < count; n = sent++) if ((await fire(n)) !== 200) failed++;
    }),
  );
}

async function main(): Promise<void> {
  const beats = Number(process.argv[2] ?? 2_000);
  const result = await scoped(async () => {
    const databaseUrl = await benchDatabase('beatinstr');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('beatinstr'), APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const bot = await benchChatbot(ctx, 'Beat instructions');
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    defer('close client sockets', () => agent.destroy());

    const node = await underCallgrind(NODE_MAIN, childEnv({ ...env, NODE_ID: 'bi-n1', PORT: '0', LOG_LEVEL: 'info', VISITOR_POLL_SECONDS: POLL_SECONDS, ...SLOW_CLUSTER }));
    for (let tries = 0; (await beat(agent, node.port, bot.publicKey, 0, 0)) !== 200; tries++) {
      if (tries > 600) throw new Error('the node never answered a heartbeat');
      await new Promise((r) => setTimeout(r, 200));
    }
    const sent = new Array<number>(VISITORS).fill(1);
    const next = (n: number) => {
      const i = n % VISITORS;
      return beat(agent, node.port, bot.publicKey, i, sent[i]!++);
    };
    await closedLoop(WARM_BEATS, next);
    // The node settles (write-behind flushed, collections done), then what it runs with no request is counted.
    await sleep(SETTLE_MS);
    const idle = await instructions(node, () => sleep(IDLE_MS));
    // The beats, and what they leave for later (the write-behind's flush, the collection of their garbage).
    failed = 0;
    const counted = await instructions(node, async () => {
      await closedLoop(beats, next);
      await sleep(SETTLE_MS);
    });

    const bare = await underCallgrind(BARE_MAIN, childEnv({}));
    const bareAgent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    defer('close bare client sockets', () => bareAgent.destroy());
    let bareSent = 0;
    const bareNext = () => beat(bareAgent, bare.port, bot.publicKey, bareSent % VISITORS, bareSent++);
    await closedLoop(WARM_BEATS, bareNext);
    await sleep(SETTLE_MS);
    const bareIdle = await instructions(bare, () => sleep(IDLE_MS));
    const bareCounted = await instructions(bare, async () => {
      await closedLoop(beats, bareNext);
      await sleep(SETTLE_MS);
    });
    const beatsFailed = failed;
    const perBeat = counted.ir / beats;
    const idlePerS = idle.ir / idle.seconds;
    const lessIdle = (counted.ir - idlePerS * counted.seconds) / beats;
    const barePerPost = (bareCounted.ir - (bareIdle.ir / bareIdle.seconds) * bareCounted.seconds) / beats;
    return {
      beats,
      visitors: VISITORS,
      instructions_per_beat: Math.round(perBeat),
      instructions_per_beat_less_idle: Math.round(lessIdle),
      idle_instructions_per_s: Math.round(idlePerS),
      // The JavaScript thread's own (less V8's workers: compiling and concurrent marking vary more between runs).
      main_instructions_per_beat_less_idle: Math.round((counted.mainIr - (idle.mainIr / idle.seconds) * counted.seconds) / beats),
      idle_main_instructions_per_s: Math.round(idle.mainIr / idle.seconds),
      bare_post_instructions_less_idle: Math.round(barePerPost),
      ratio_less_idle: Number((lessIdle / barePerPost).toFixed(2)),
      seconds: Number(counted.seconds.toFixed(1)),
      failed: beatsFailed,
    };
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

runScript(main);
