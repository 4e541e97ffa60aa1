import { mkdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { Visitor } from '../src/models';
import { defer, scoped } from './support/cleanup';
import { benchChatbot } from './support/corpus';
import { hotSpots, newestProfile } from './support/profile';
import { Running } from '../test/support/processes';
import { childEnv, forgetLogs, NODE_MAIN, ROOT } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { median, round, summarize } from './support/stats';
import { PROFILE_DIR } from './throughput';

const VISITORS = 20_000;
/** Requests in flight in the saturation phases: enough to keep one node busy, as many browsers would. */
const CONCURRENCY = 64;
/** Heartbeat and /healthz saturation alternate, so a noisy neighbour on the machine hits both alike. */
const ROUNDS = 3;
const SATURATE_MS = 5_000;
const HEALTHZ_MS = 3_000;
/** Open-loop phases (a slow answer delays no later send): the goal rate, and a lighter one for context. */
const GOAL_RATE_PER_S = 3_000;
const LIGHT_RATE_PER_S = 1_000;
const PACED_MS = 10_000;
const GOAL_P99_MS = 20;
/** One beat in this many is on a new page (a page view row); the rest repeat the page. */
const NEW_PAGE_EVERY = 3;

interface Target {
  host: string;
  port: number;
  agent: Agent;
}

interface Answer {
  status: number;
  ms: number;
}

/**
 * One request over a keep-alive connection; resolves with the status and the time from `since` to
 * the last byte. A reused socket the server closed for idling (its keep-alive timeout) just as we
 * picked it answers ECONNRESET before anything was processed: that one is retried, as Node's
 * documentation advises; any other error fails the request.
 */
function send(target: Target, path: string, method: 'GET' | 'POST', body: string | undefined, headers: Record<string, string>, since: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length: Record<string, string | number> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = request({ host: target.host, port: target.port, path, method, agent: target.agent, headers: { ...length, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - since }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === 'ECONNRESET') resolve(send(target, path, method, body, headers, since));
      else reject(error);
    });
    req.end(body);
  });
}

const post = (target: Target, path: string, body: string, headers: Record<string, string>, since = performance.now()) => send(target, path, 'POST', body, headers, since);
const get = (target: Target, path: string, since = performance.now()) => send(target, path, 'GET', undefined, {}, since);

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** Visitor i's n-th heartbeat: its own IP (per-IP limits, as real browsers), a new page every few beats. */
function heartbeat(target: Target, key: string, i: number, n: number, since?: number): Promise<Answer> {
  const page = Math.floor(n / NEW_PAGE_EVERY);
  const body = JSON.stringify({ visitor_id: `bench-visitor-${i}`, url: `https://shop.example/products/${page}`, title: `Product ${page}`, referrer: 'https://www.google.com/' });
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return post(target, `/widget/${key}/heartbeat`, body, { 'x-forwarded-for': ip, 'user-agent': UA, 'cf-ipcountry': 'DE' }, since);
}

type Phase = Awaited<ReturnType<typeof saturate>> & { nodeCpuS: number; driverCpuS: number };

/** CPU seconds a process has used so far (user + system), from /proc: the node's own cost, whatever else shares the machine. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat; after the ") " split they sit at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs a phase and says how many CPU seconds the node and this driver spent in it. */
async function metered<T>(pid: number, phase: () => Promise<T>): Promise<T & { nodeCpuS: number; driverCpuS: number }> {
  const node = cpuSeconds(pid);
  const driver = process.cpuUsage();
  const result = await phase();
  const used = process.cpuUsage(driver);
  return { ...result, nodeCpuS: cpuSeconds(pid) - node, driverCpuS: (used.user + used.system) / 1e6 };
}

/** Closed loop: `concurrency` workers, each sending its next request when the last one answers. */
async function saturate(ms: number, concurrency: number, fire: (n: number) => Promise<Answer>): Promise<{ perS: number; failed: number; times: number[] }> {
  let sent = 0;
  let failed = 0;
  const times: number[] = [];
  const start = performance.now();
  const until = start + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const answer = await fire(sent++);
        if (answer.status !== 200) failed++;
        times.push(answer.ms);
      }
    }),
  );
  return { perS: times.length / ((performance.now() - start) / 1000), failed, times };
}

/**
 * Open loop at a fixed rate: request k is due at start + k / rate, and its latency is measured from
 * when it was due, so a stall shows up in every request it delayed (no coordinated omission).
 */
async function paced(ms: number, perS: number, fire: (n: number, due: number) => Promise<Answer>): Promise<{ perS: number; failed: number; times: number[] }> {
  const start = performance.now();
  const total = Math.floor((ms / 1000) * perS);
  const pending: Promise<void>[] = [];
  const times: number[] = [];
  let failed = 0;
  let k = 0;
  while (k < total) {
    const now = performance.now();
    for (; k < total && start + (k * 1000) / perS <= now; k++) {
      const due = start + (k * 1000) / perS;
      pending.push(
        fire(k, due).then(
          (answer) => {
            if (answer.status !== 200) failed++;
            times.push(answer.ms);
          },
          () => void failed++,
        ),
      );
    }
    // Sleep to the next due time (timers have 1 ms grain): a busy-wait would take a core from the node.
    await new Promise((r) => setTimeout(r, Math.max(1, start + (k * 1000) / perS - performance.now())));
  }
  await Promise.all(pending);
  return { perS: times.length / ((performance.now() - start) / 1000), failed, times };
}

/**
 * `POST /widget/{key}/heartbeat` over real HTTP against one web node (cluster mode: Redis rate
 * limits, one node owning every shard), 20,000 distinct visitors, each from its own IP. Phases:
 * arrival (every visitor's first beat: actor activation, row insert), saturation (closed loop,
 * the most beats per second the node answers), and latency at the goal rate (open loop).
 * Baseline: GET /healthz through the same HTTP stack, closed loop, same concurrency.
 */
export async function heartbeats(options: { cpuProf: boolean }): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(async () => {
    const databaseUrl = await benchDatabase('heartbeats');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('heartbeats'), APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const bot = await benchChatbot(ctx, 'Heartbeat bench');

    // --cpu-prof: the node profiles itself (written when it exits) and its hot spots join the notes.
    if (options.cpuProf) mkdirSync(PROFILE_DIR, { recursive: true });
    const nodeEnv = childEnv({ ...env, NODE_ID: 'hb-n1', PORT: '0', LOG_LEVEL: 'info' });
    // Node flags go before the script (Running spawns `node <first> <rest...>`); --cpu-prof is refused in NODE_OPTIONS.
    const [first, ...rest] = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, NODE_MAIN] : [NODE_MAIN];
    const running = new Running(first!, rest, { env: nodeEnv });
    // SIGTERM (a graceful stop writes the profile), SIGKILL if it does not exit in time.
    const stop = async () => {
      running.child.kill('SIGTERM');
      if (!(await running.exitWithin(20_000))) running.child.kill('SIGKILL');
    };
    const undoStop = defer('stop the heartbeat node', stop);
    const listening = await running.waitForLog((entry) => entry.msg === 'listening', 60_000);
    await running.waitForLog((entry) => entry.msg === 'control listening', 10_000);
    forgetLogs(running);
    const target: Target = { host: '127.0.0.1', port: Number(listening.port), agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) };
    defer('close client sockets', () => target.agent.destroy());
    // A single node takes every shard before it answers; an ask before that would time a 503.
    for (let tries = 0; (await heartbeat(target, bot.publicKey, 0, 0)).status !== 200; tries++) {
      if (tries > 200) throw new Error('the node never answered a heartbeat');
      await new Promise((r) => setTimeout(r, 100));
    }

    const beats = new Array<number>(VISITORS).fill(1);
    const next = (n: number, due?: number) => {
      const i = n % VISITORS;
      return heartbeat(target, bot.publicKey, i, beats[i]!++, due);
    };
    const pid = running.child.pid!;
    // Arrival: every visitor's first beat (activation, the immediate insert of its row and entry page).
    let arrived = 1;
    const arrival = await metered(pid, async () => {
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = arrived++; i < VISITORS; i = arrived++) {
            const answer = await heartbeat(target, bot.publicKey, i, 0);
            if (answer.status !== 200) throw new Error(`arrival beat answered ${answer.status}`);
          }
        }),
      );
      return { perS: VISITORS / ((performance.now() - start) / 1000) };
    });

    const rounds: Array<{ beats: Phase; healthz: Phase }> = [];
    let sent = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const beatsPhase = await metered(pid, () => saturate(SATURATE_MS, CONCURRENCY, () => next(sent++)));
      const healthzPhase = await metered(pid, () => saturate(HEALTHZ_MS, CONCURRENCY, () => get(target, '/healthz')));
      rounds.push({ beats: beatsPhase, healthz: healthzPhase });
    }
    const atGoal = await paced(PACED_MS, GOAL_RATE_PER_S, (_, due) => next(sent++, due));
    const light = await paced(PACED_MS, LIGHT_RATE_PER_S, (_, due) => next(sent++, due));

    // The write-behind caught up: every visitor has its row.
    await new Promise((r) => setTimeout(r, 1_500));
    const written = await Visitor.count({ where: { companyId: bot.companyId } });
    const notes: string[] = [];
    if (options.cpuProf) {
      undoStop();
      await stop();
      const file = newestProfile(PROFILE_DIR);
      if (file) {
        notes.push(`cpu profile of the node: ${file.slice(ROOT.length + 1)}; top self time:`);
        for (const spot of hotSpots(file, 25)) notes.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
      }
    }
    const cpuPer = (phase: Phase) => (1e6 * phase.nodeCpuS) / phase.times.length;
    const beatsPerS = median(rounds.map((r) => r.beats.perS));
    const beatCpuUs = median(rounds.map((r) => cpuPer(r.beats)));
    const healthzCpuUs = median(rounds.map((r) => cpuPer(r.healthz)));
    const saturation = summarize(rounds.flatMap((r) => r.beats.times));
    const goal = summarize(atGoal.times);
    const lighter = summarize(light.times);
    const failed = rounds.reduce((sum, r) => sum + r.beats.failed, 0) + atGoal.failed + light.failed;
    const pass = beatsPerS >= GOAL_RATE_PER_S && goal.p99 <= GOAL_P99_MS && failed === 0;
    return {
      name: 'heartbeats',
      title: 'POST /widget/{key}/heartbeat over HTTP, one web node, 20,000 visitors',
      goal: `>= ${GOAL_RATE_PER_S} heartbeats/s per node and p99 <= ${GOAL_P99_MS} ms at ${GOAL_RATE_PER_S}/s`,
      pass,
      figures: {
        max_per_s: Math.round(beatsPerS),
        saturated_p50_ms: round(saturation.p50),
        saturated_p99_ms: round(saturation.p99),
        at_goal_rate_per_s: Math.round(atGoal.perS),
        at_goal_rate_p50_ms: round(goal.p50),
        at_goal_rate_p99_ms: round(goal.p99),
        at_1000_per_s_p50_ms: round(lighter.p50),
        at_1000_per_s_p99_ms: round(lighter.p99),
        node_cpu_us_per_beat: Math.round(beatCpuUs),
        beats_per_node_cpu_s: Math.round(1e6 / beatCpuUs),
        arrivals_per_s: Math.round(arrival.perS),
        node_cpu_us_per_arrival: Math.round((1e6 * arrival.nodeCpuS) / VISITORS),
        driver_cpu_us_per_beat: Math.round(median(rounds.map((r) => (1e6 * r.beats.driverCpuS) / r.beats.times.length))),
        failed,
      },
      baseline: {
        healthz_per_s: Math.round(median(rounds.map((r) => r.healthz.perS))),
        healthz_node_cpu_us: Math.round(healthzCpuUs),
        healthz_per_node_cpu_s: Math.round(1e6 / healthzCpuUs),
      },
      settings: {
        visitors: VISITORS,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        saturate_ms: SATURATE_MS,
        healthz_ms: HEALTHZ_MS,
        paced_ms: PACED_MS,
        new_page_every: NEW_PAGE_EVERY,
        visitor_rows: written,
        log_level: 'info',
      },
      notes: [
        'node: dist/test/support/cluster/nodeMain.js (startWeb: the production web node, plus a control port), cluster mode on Redis, LOG_LEVEL=info (every request logged, as in production)',
        'driver: this process, node:http keep-alive, on the same machine as the node, Postgres and Redis: they share its CPUs, so max_per_s is what this machine gives one node; beats_per_node_cpu_s is what one node does per core of its own',
        'each beat: Redis rate limit, chatbot lookup (cached 5 s), zod, local actor ask, presence in memory; visitor rows and page views written once a second in one statement',
        `saturated: closed loop, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds alternating with /healthz (the baseline: the same HTTP stack, middleware and logging, no work)`,
        'at_goal_rate and at_1000_per_s: open loop, latency measured from when each request was due (a stall counts against every request it delays)',
        ...notes,
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
