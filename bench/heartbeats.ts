import { mkdirSync } from 'node:fs';
import { cpuSeconds } from './support/cpu';
import { backendCpuBetween, databaseBackends } from './support/databaseBackends';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { Visitor } from '../src/models';
import { defer, scoped } from './support/cleanup';
import { benchChatbot } from './support/corpus';
import { HARNESS_CORE, loadNow, NODE_CORE, pin, pinningSettings, pinSelf, pinServices } from './support/pinning';
import { hotSpots, monotonicUs, newestProfile, type Window } from './support/profile';
import { Running } from '../test/support/processes';
import { childEnv, forgetLogs, NODE_MAIN, ROOT } from './support/processes';
import { resolve } from 'node:path';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { median, round, summarize } from './support/stats';
import { PROFILE_DIR } from './throughput';

const FULL_VISITORS = 20_000;
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
/** Issue 23: node CPU per heartbeat <= this many times a bare node:http answer's, same run, same pinning. */
const GOAL_CPU_RATIO = 3;
/** Issue 23: new visitors (first heartbeat) one node takes per second. */
const GOAL_ARRIVALS_PER_S = 3_000;
const BARE_MAIN = resolve(__dirname, 'support/bareHttpMain.js');
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
 * limits, one node owning every shard), 20,000 distinct visitors, each from its own IP, on the
 * pinned method (bench/support/pinning.ts): the node on one core, this driver on the other. Phases:
 * arrival (every visitor's first beat: actor activation, row insert), saturation (closed loop),
 * alternating with the baselines, and latency at fixed rates (open loop).
 * Baselines, same run, same pinning, same client: a bare `node:http` server (GET, and POST with the
 * heartbeat's JSON body), and GET /healthz through the node's own stack.
 * Two results: `heartbeats` (node CPU per beat against bare node:http) and `arrivals` (new visitors).
 */
export async function heartbeats(options: { cpuProf: boolean; scale: number }): Promise<BenchResult[]> {
  const startedAt = new Date();
  // --scale: fewer visitors (a quicker profile); the per-beat figures do not depend on it much, arrivals/s may.
  const VISITORS = Math.max(1_000, Math.round(FULL_VISITORS * options.scale));
  const loadAtStart = loadNow();
  return scoped(async () => {
    pinSelf();
    const services = pinServices();
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
    const pid = running.child.pid!;
    const bare = new Running(BARE_MAIN, [], { env: childEnv({}) });
    defer('stop the bare server', () => bare.child.kill('SIGKILL'));
    const bareListening = await bare.waitForLog((entry) => entry.msg === 'listening', 10_000);
    const pinned = pin(pid, NODE_CORE) && pin(bare.child.pid!, NODE_CORE);
    const target: Target = { host: '127.0.0.1', port: Number(listening.port), agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) };
    const bareTarget: Target = { host: '127.0.0.1', port: Number(bareListening.port), agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) };
    defer('close client sockets', () => {
      target.agent.destroy();
      bareTarget.agent.destroy();
    });
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
    // Arrival: every visitor's first beat (activation, the immediate insert of its row and entry page).
    let arrived = 1;
    const database = new URL(databaseUrl).pathname.slice(1);
    const backendsBefore = databaseBackends(database);
    const arrivalFromUs = monotonicUs();
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
    const arrivalWindow: Window = { fromUs: arrivalFromUs, toUs: monotonicUs() };
    // Postgres's share: the CPU of this database's backends (the node's pool) over the phase.
    const arrivalPostgresS = backendCpuBetween(backendsBefore, databaseBackends(database));
    const arrivalSeconds = (arrivalWindow.toUs - arrivalWindow.fromUs) / 1e6;
    const loadAfterArrival = loadNow();

    // The bare server's POST gets a heartbeat's body (same bytes on the wire, parsed), from its own IP as a beat would.
    let bareSent = 0;
    const barePost = () => heartbeat(bareTarget, bot.publicKey, bareSent % VISITORS, bareSent++);
    const rounds: Array<{ beats: Phase; healthz: Phase; bareGet: Phase; barePost: Phase }> = [];
    let sent = 0;
    const beatWindows: Window[] = [];
    const idleCores: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const fromUs = monotonicUs();
      const beatsPhase = await metered(pid, () => saturate(SATURATE_MS, CONCURRENCY, () => next(sent++)));
      beatWindows.push({ fromUs, toUs: monotonicUs() });
      const healthzPhase = await metered(pid, () => saturate(HEALTHZ_MS, CONCURRENCY, () => get(target, '/healthz')));
      // The node idles meanwhile: what it spends with no request at all (timers, cluster beats, write-behind) is its background.
      const idleFrom = cpuSeconds(pid);
      const idleStart = performance.now();
      const bareGetPhase = await metered(bare.child.pid!, () => saturate(HEALTHZ_MS, CONCURRENCY, () => get(bareTarget, '/healthz')));
      const barePostPhase = await metered(bare.child.pid!, () => saturate(HEALTHZ_MS, CONCURRENCY, barePost));
      idleCores.push((cpuSeconds(pid) - idleFrom) / ((performance.now() - idleStart) / 1000));
      rounds.push({ beats: beatsPhase, healthz: healthzPhase, bareGet: bareGetPhase, barePost: barePostPhase });
    }
    const loadAfterSaturation = loadNow();
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
        notes.push(`cpu profile of the node: ${file.slice(ROOT.length + 1)}; top self time in the saturated heartbeat phases:`);
        for (const spot of hotSpots(file, 25, beatWindows)) notes.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
        notes.push(`top self time in the arrival phase (first heartbeats; monotonic us ${arrivalWindow.fromUs}-${arrivalWindow.toUs}):`);
        for (const spot of hotSpots(file, 15, [arrivalWindow])) notes.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
        notes.push('top self time in the whole run (arrivals included):');
        for (const spot of hotSpots(file, 10)) notes.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
      }
    }
    const cpuPer = (phase: Phase) => (1e6 * phase.nodeCpuS) / phase.times.length;
    const beatsPerS = median(rounds.map((r) => r.beats.perS));
    const beatCpuUs = median(rounds.map((r) => cpuPer(r.beats)));
    const healthzCpuUs = median(rounds.map((r) => cpuPer(r.healthz)));
    const bareGetCpuUs = median(rounds.map((r) => cpuPer(r.bareGet)));
    const barePostCpuUs = median(rounds.map((r) => cpuPer(r.barePost)));
    const ratio = beatCpuUs / barePostCpuUs;
    const saturation = summarize(rounds.flatMap((r) => r.beats.times));
    const goal = summarize(atGoal.times);
    const lighter = summarize(light.times);
    const failed = rounds.reduce((sum, r) => sum + r.beats.failed, 0) + atGoal.failed + light.failed;
    const arrivalCpuUs = (1e6 * arrival.nodeCpuS) / VISITORS;
    const seconds = (Date.now() - startedAt.getTime()) / 1000;
    const settings: BenchResult['settings'] = {
      ...pinningSettings(services),
      pinned: pinned ? 'yes' : 'no (taskset refused)',
      visitors: VISITORS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      saturate_ms: SATURATE_MS,
      healthz_ms: HEALTHZ_MS,
      paced_ms: PACED_MS,
      new_page_every: NEW_PAGE_EVERY,
      visitor_rows: written,
      log_level: 'info',
      load_average: `start ${loadAtStart}; after arrival ${loadAfterArrival}; after saturation ${loadAfterSaturation}; end ${loadNow()} (1/5/15 min)`,
    };
    const results: BenchResult[] = [
      {
        name: 'heartbeats',
        title: 'POST /widget/{key}/heartbeat over HTTP, one web node pinned to a core, node CPU per beat against bare node:http',
        goal: `node CPU per heartbeat <= ${GOAL_CPU_RATIO}x a bare node:http POST answer (same run, same pinning); also reported: beats/s and p99 at ${GOAL_RATE_PER_S}/s (old goal p99 <= ${GOAL_P99_MS} ms)`,
        pass: ratio <= GOAL_CPU_RATIO && failed === 0,
        figures: {
          node_cpu_us_per_beat: Math.round(beatCpuUs),
          cpu_ratio_to_bare_post_x: round(ratio, 2),
          cpu_ratio_to_bare_get_x: round(beatCpuUs / bareGetCpuUs, 2),
          beats_per_node_cpu_s: Math.round(1e6 / beatCpuUs),
          max_per_s: Math.round(beatsPerS),
          saturated_p50_ms: round(saturation.p50),
          saturated_p99_ms: round(saturation.p99),
          at_goal_rate_per_s: Math.round(atGoal.perS),
          at_goal_rate_p50_ms: round(goal.p50),
          at_goal_rate_p99_ms: round(goal.p99),
          at_1000_per_s_p50_ms: round(lighter.p50),
          at_1000_per_s_p99_ms: round(lighter.p99),
          node_idle_cpu_ms_per_s: round(1000 * median(idleCores), 1),
          node_cpu_us_per_beat_less_idle: Math.round(median(rounds.map((r) => (1e6 * (r.beats.nodeCpuS - median(idleCores) * (SATURATE_MS / 1000))) / r.beats.times.length))),
          driver_cpu_us_per_beat: Math.round(median(rounds.map((r) => (1e6 * r.beats.driverCpuS) / r.beats.times.length))),
          failed,
        },
        baseline: {
          bare_post_cpu_us: Math.round(barePostCpuUs),
          bare_get_cpu_us: Math.round(bareGetCpuUs),
          bare_post_per_s: Math.round(median(rounds.map((r) => r.barePost.perS))),
          healthz_node_cpu_us: Math.round(healthzCpuUs),
          healthz_per_s: Math.round(median(rounds.map((r) => r.healthz.perS))),
        },
        settings,
        notes: [
          `pinned method: the node and the bare server on core ${NODE_CORE} (one measured at a time), this driver on core ${HARNESS_CORE}; CPU per request = utime+stime from /proc/<pid>/stat over the phase / requests answered`,
          'node: dist/test/support/cluster/nodeMain.js (startWeb: the production web node, plus a control port), cluster mode on Redis, LOG_LEVEL=info',
          'each beat: Redis rate limit, chatbot lookup (cached 5 s), zod, local actor ask, presence in memory; visitor rows and page views written once a second in one statement',
          `saturated: closed loop, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds alternating with /healthz, bare GET and bare POST (the baseline: a node:http server parsing the same JSON body)`,
          'at_goal_rate and at_1000_per_s: open loop, latency measured from when each request was due; wall-clock figures follow the machine load (settings.load_average)',
          ...notes,
        ],
        startedAt: startedAt.toISOString(),
        seconds,
      },
      {
        name: 'arrivals',
        title: 'new visitors arriving (first heartbeat: actor activation, visitor row and entry page), one web node',
        goal: `>= ${GOAL_ARRIVALS_PER_S} new visitors/s on one node`,
        pass: arrival.perS >= GOAL_ARRIVALS_PER_S,
        figures: {
          arrivals_per_s: Math.round(arrival.perS),
          node_cpu_us_per_arrival: Math.round(arrivalCpuUs),
          node_cpu_us_per_arrival_less_idle: Math.round((1e6 * (arrival.nodeCpuS - median(idleCores) * arrivalSeconds)) / VISITORS),
          arrivals_per_node_cpu_s: Math.round(1e6 / arrivalCpuUs),
          postgres_cpu_us_per_arrival: Math.round((1e6 * arrivalPostgresS) / VISITORS),
        },
        baseline: { bare_post_cpu_us: Math.round(barePostCpuUs), bare_post_per_s: Math.round(median(rounds.map((r) => r.barePost.perS))) },
        settings,
        notes: [
          `${VISITORS} visitors' first beats, closed loop, ${CONCURRENCY} in flight; Postgres and Redis share the machine (settings.services)`,
          "postgres_cpu_us_per_arrival: utime+stime of the bench database's backends (found by their process titles in /proc) over the phase / arrivals; the server's shared processes (WAL writer, checkpointer) are not in it",
          'node_cpu_us_per_arrival_less_idle: less what the node spends with no request (node_idle_cpu_ms_per_s of heartbeats) over the phase; the arrival phase is the node\'s first load, so its code is still being compiled then',
        ],
        startedAt: startedAt.toISOString(),
        seconds,
      },
    ];
    return results;
  });
}
