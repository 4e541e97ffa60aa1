import { scoped } from './support/cleanup';
import { benchSystem } from './support/context';
import { conversationBehaviour, conversationState, type ConversationState } from './support/kinds';
import { CHILD, lastJsonLine, runChild } from './support/processes';
import { APP_KEY, benchDatabase } from './support/resources';
import type { BenchResult } from './support/report';
import { round } from './support/stats';

const ACTORS = 50_000;
const WARM = 200;
const BATCH = 1_000;
const GOAL_BYTES = 10 * 1024;

export type MemoryMode = 'runtime' | 'map';

interface Measured {
  mode: MemoryMode;
  actors: number;
  heapBefore: number;
  heapAfter: number;
  bytesPerActor: number;
  /** CPU used while nothing is asked, in % of one core: the cost of keeping this many actors around. */
  idleCpuPercent: number;
}

/** Full collections until heapUsed stops shrinking: what is left is what is reachable. */
export async function settledHeap(): Promise<number> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with node --expose-gc');
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    gc();
    // Lets resolved promises and timers from the last batch be released before the next collection.
    await new Promise((r) => setImmediate(r));
    const used = process.memoryUsage().heapUsed;
    if (used >= last - 1024) return used;
    last = used;
  }
  return last;
}

const IDLE_MS = 2_000;

/** The host sweeps every activation every 250 ms (deadlines, passivation); this shows what that costs at rest. */
async function idleCpu(): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const used = process.cpuUsage(before);
  return (100 * (used.user + used.system)) / 1000 / IDLE_MS;
}

/**
 * Runs in a child started with --expose-gc: the heap growth from `actors` live conversation-like
 * actors (runtime) or the same state objects in a plain Map (baseline), after everything else the
 * process needs is loaded and warm.
 */
export async function measureMemory(mode: MemoryMode, actors: number): Promise<Measured> {
  if (mode === 'map') {
    const map = new Map<string, ConversationState>();
    for (let i = 0; i < WARM; i++) conversationState(actors + i); // warms the same code paths, then dropped
    const heapBefore = await settledHeap();
    for (let i = 0; i < actors; i++) map.set(`benchConversation:${i}`, conversationState(i));
    const heapAfter = await settledHeap();
    const idleCpuPercent = await idleCpu();
    if (map.size !== actors) throw new Error('map lost entries');
    return { mode, actors, heapBefore, heapAfter, bytesPerActor: (heapAfter - heapBefore) / actors, idleCpuPercent };
  }
  const system = await benchSystem({ DATABASE_URL: process.env.DATABASE_URL! }, [conversationBehaviour()], { idleMs: 3_600_000 });
  try {
    const ask = (i: number) => system.actors.ask('benchConversation', String(i), { type: 'touch' });
    // Warm actors (ids past the measured range) load the code and size the runtime's maps before the baseline heap reading.
    await Promise.all(Array.from({ length: WARM }, (_, i) => ask(actors + i)));
    const heapBefore = await settledHeap();
    for (let i = 0; i < actors; i += BATCH) await Promise.all(Array.from({ length: Math.min(BATCH, actors - i) }, (_, j) => ask(i + j)));
    const heapAfter = await settledHeap();
    const idleCpuPercent = await idleCpu();
    if (system.actors.activeActors() !== actors + WARM) throw new Error(`expected ${actors + WARM} active actors, found ${system.actors.activeActors()}`);
    return { mode, actors, heapBefore, heapAfter, bytesPerActor: (heapAfter - heapBefore) / actors, idleCpuPercent };
  } finally {
    await system.close();
  }
}

export async function memory(): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(async () => {
    const databaseUrl = await benchDatabase('memory');
    const env = { DATABASE_URL: databaseUrl, APP_KEY };
    // One child per side: each starts from a fresh heap, so neither inherits the other's garbage or map capacity.
    const measure = async (mode: MemoryMode) =>
      lastJsonLine<Measured>(await runChild(['--expose-gc', CHILD, 'memory', mode, String(ACTORS)], env, 300_000), `memory child (${mode})`);
    const map = await measure('map');
    const runtime = await measure('runtime');
    return {
      name: 'memory',
      title: 'memory per active actor (single node, conversation-like state)',
      goal: `<= ${GOAL_BYTES / 1024} KB heap per active actor`,
      pass: runtime.bytesPerActor <= GOAL_BYTES,
      figures: {
        bytes_per_actor: Math.round(runtime.bytesPerActor),
        runtime_overhead_bytes_per_actor: Math.round(runtime.bytesPerActor - map.bytesPerActor),
        heap_growth_mb: round((runtime.heapAfter - runtime.heapBefore) / 2 ** 20, 1),
        idle_cpu_percent: round(runtime.idleCpuPercent, 1),
      },
      baseline: {
        map_bytes_per_actor: Math.round(map.bytesPerActor),
        map_heap_growth_mb: round((map.heapAfter - map.heapBefore) / 2 ** 20, 1),
        map_idle_cpu_percent: round(map.idleCpuPercent, 1),
      },
      settings: { actors: ACTORS },
      notes: [
        `${ACTORS.toLocaleString('en')} benchConversation actors activated by one ask each, heapUsed after forced GC (node --expose-gc), before vs after`,
        `idle CPU: % of one core used over ${IDLE_MS / 1000} s with all actors live and nothing asked (the host's 250 ms sweep, lease renewals)`,
        'state per actor: 15 fields of models/Conversation.ts (ids, status strings, counters) + 5 recent messages of ~50 chars, all flat strings of their own',
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
