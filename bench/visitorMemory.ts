import { loadConfig } from '../config/env';
import { Agent, request } from 'node:http';
import { visitorActorId } from '../src/actors/visitor/protocol';
import { applyBeat } from '../src/actors/visitor/journey';
import { blankVisitor, type VisitorRecord } from '../src/domain/visitors/records';
import { createLogger } from '../src/logger';
import { startWeb } from '../src/web';
import { scoped } from './support/cleanup';
import { benchChatbot } from './support/corpus';
import { settledHeap } from './memory';
import { CHILD, lastJsonLine, runChild } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { round } from './support/stats';

const VISITORS = 30_000;
const WARM = 500;
const BATCH = 500;
const GOAL_BYTES = 2 * 1024;
/**
 * Long enough that all visitors are still online when the heap is read after the last arrival
 * (they leave after 2 intervals), short enough that they passivate (3 intervals) within the bench.
 */
const POLL_SECONDS = 30;
const PASSIVATION_TIMEOUT_MS = 200_000;
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

export type VisitorMemoryMode = 'runtime' | 'map';

interface Measured {
  mode: VisitorMemoryMode;
  visitors: number;
  heapBefore: number;
  /** All visitors on the site (online, their actors live). */
  heapLive: number;
  /** Visitor actors live when heapLive was read: every visitor (the warm ones included). */
  liveActors: number;
  /** After every visitor left and their actors passivated (runtime only). */
  heapKnown: number;
  liveActorsAfter: number;
  passivatedWithinMs: number;
}

const visitorKeyOf = (i: number) => `memory-visitor-${i.toString(36).padStart(8, '0')}-${(i * 7919).toString(16)}`;
const pageOf = (i: number) => ({ url: `https://shop.example/products/${i % 997}?ref=home`, title: `Product ${i % 997}`, referrer: 'https://www.google.com/' });

/** Visitor i's first heartbeat over HTTP, from its own IP, as a browser sends it. */
function post(port: number, agent: Agent, publicKey: string, i: number): Promise<void> {
  const body = JSON.stringify({ visitor_id: visitorKeyOf(i), ...pageOf(i), timezone: 'Europe/Berlin' });
  const headers = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    'user-agent': UA,
    'accept-language': 'en-US,en;q=0.9',
    'cf-ipcountry': 'DE',
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/widget/${publicKey}/heartbeat`, method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`heartbeat answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What the actor would hold for visitor i (each with its own strings, as requests bring them). */
function recordOf(i: number, now: number): VisitorRecord {
  const own = (text: string) => Buffer.from(text).toString();
  const page = pageOf(i);
  const beat = { chatbotId: 1, trackBehavior: true, url: own(page.url), title: own(page.title), referrer: own(page.referrer), userAgent: own(UA), country: 'DE', locale: own('en-US'), timezone: own('Europe/Berlin') };
  return { ...applyBeat(blankVisitor(1, own(visitorKeyOf(i))), beat, now).next, id: i + 1 };
}

/**
 * Runs in a child started with --expose-gc: the heap growth from `visitors` visitors, each one
 * heartbeat, on a real single-node web node (startWeb: the visitor actors, their write-behind,
 * arrival notifications), measured while all are online and again after they left and passivated;
 * or the same visitor records in a plain Map (baseline: the state itself, no runtime).
 */
export async function measureVisitorMemory(mode: VisitorMemoryMode, visitors: number): Promise<Measured> {
  if (mode === 'map') {
    const map = new Map<string, VisitorRecord>();
    const now = Date.now();
    for (let i = 0; i < WARM; i++) recordOf(visitors + i, now);
    const heapBefore = await settledHeap();
    for (let i = 0; i < visitors; i++) map.set(visitorActorId(1, visitorKeyOf(i)), recordOf(i, now));
    const heapLive = await settledHeap();
    if (map.size !== visitors) throw new Error('map lost entries');
    return { mode, visitors, heapBefore, heapLive, liveActors: 0, heapKnown: heapLive, liveActorsAfter: 0, passivatedWithinMs: 0 };
  }
  const config = loadConfig({
    APP_KEY,
    NODE_ID: 'bench-visitors',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATABASE_URL: process.env.DATABASE_URL!,
    REDIS_URL: process.env.REDIS_URL!,
    REDIS_PREFIX: process.env.REDIS_PREFIX!,
    VISITOR_POLL_SECONDS: String(POLL_SECONDS),
  });
  const web = await startWeb(config, createLogger('silent'));
  let agent: Agent | undefined;
  try {
    const bot = await benchChatbot(web.ctx, 'Visitor memory bench');
    agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const sockets = agent;
    const beat = (i: number) => post(web.port, sockets, bot.publicKey, i);
    // A single node takes its shards just after it starts listening: retry the first beat until it serves.
    for (let tries = 0; ; tries++) {
      try {
        await beat(visitors + WARM);
        break;
      } catch (error) {
        if (tries > 300) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const inBatches = async (from: number, count: number) => {
      for (let i = 0; i < count; i += BATCH) await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => beat(from + i + j)));
    };
    // Warm visitors (ids past the measured range) load the code and size the runtime's maps first.
    await inBatches(visitors, WARM);
    const heapBefore = await settledHeap();
    await inBatches(0, visitors);
    const heapLive = await settledHeap();
    const liveActors = web.actors.activeActorsByKind().visitor ?? 0;
    const left = Date.now();
    while ((web.actors.activeActorsByKind().visitor ?? 0) > 0 && Date.now() - left < PASSIVATION_TIMEOUT_MS) await new Promise((r) => setTimeout(r, 250));
    const passivatedWithinMs = Date.now() - left;
    const heapKnown = await settledHeap();
    return { mode, visitors, heapBefore, heapLive, liveActors, heapKnown, liveActorsAfter: web.actors.activeActorsByKind().visitor ?? 0, passivatedWithinMs };
  } finally {
    agent?.destroy();
    await web.stop();
  }
}

export async function visitorMemory(): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(async () => {
    const databaseUrl = await benchDatabase('visitormemory');
    const env = { DATABASE_URL: databaseUrl, APP_KEY, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('visitormemory') };
    const measure = async (mode: VisitorMemoryMode) =>
      lastJsonLine<Measured>(await runChild(['--expose-gc', CHILD, 'visitorMemory', mode, String(VISITORS)], env, 300_000), `visitor memory child (${mode})`);
    const map = await measure('map');
    const runtime = await measure('runtime');
    const perVisitor = (heap: number, m: Measured) => (heap - m.heapBefore) / m.visitors;
    const known = perVisitor(runtime.heapKnown, runtime);
    const live = perVisitor(runtime.heapLive, runtime);
    return {
      name: 'visitorMemory',
      title: 'node memory per known visitor (heap after N visitors, single web node), bounded by passivation',
      goal: `<= ${GOAL_BYTES / 1024} KB heap per known visitor once visitors have left (their actors passivate)`,
      pass: known <= GOAL_BYTES && runtime.liveActorsAfter === 0 && runtime.liveActors >= VISITORS,
      figures: {
        bytes_per_known_visitor: Math.round(known),
        bytes_per_online_visitor: Math.round(live),
        online_overhead_over_map_bytes: Math.round(live - perVisitor(map.heapLive, map)),
        heap_growth_online_mb: round((runtime.heapLive - runtime.heapBefore) / 2 ** 20, 1),
        heap_growth_known_mb: round((runtime.heapKnown - runtime.heapBefore) / 2 ** 20, 1),
        visitor_actors_online: runtime.liveActors,
        visitor_actors_left: runtime.liveActorsAfter,
        passivated_within_s: round(runtime.passivatedWithinMs / 1000, 1),
      },
      baseline: {
        map_bytes_per_visitor: Math.round(perVisitor(map.heapLive, map)),
        map_heap_growth_mb: round((map.heapLive - map.heapBefore) / 2 ** 20, 1),
      },
      settings: { visitors: VISITORS, poll_seconds: POLL_SECONDS, mode: 'cluster (Redis), one node' },
      notes: [
        `${VISITORS.toLocaleString('en')} visitors, one heartbeat each over HTTP from its own IP (the web node and the client in one process: 64 keep-alive sockets), heapUsed after forced GC (node --expose-gc) before, while all are online, and after they left and passivated`,
        `VISITOR_POLL_SECONDS=${POLL_SECONDS}: a visitor is announced offline after 2 silent intervals and its actor passivates two intervals after that (60 s after the last beat with the default 15 s); bytes_per_online_visitor is read with every visitor's actor live (visitor_actors_online)`,
        'baseline: the same visitor records (VisitorRecord, each with its own strings) in a plain Map',
        'not in the node heap: the per-IP rate-limit counters (in Redis in cluster mode; a single-node server keeps them in memory for their minute)',
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
