import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { scoped } from './support/cleanup';
import { benchSystem } from './support/context';
import { counterBehaviour } from './support/kinds';
import { CHILD, lastJsonLine, ROOT, runChild } from './support/processes';
import { hotSpots, newestProfile } from './support/profile';
import { APP_KEY, benchDatabase } from './support/resources';
import type { BenchResult } from './support/report';
import { median, round } from './support/stats';

const ACTORS = 1_000;
/** Asks in flight at once: one per actor, as a busy node with many conversations would see. */
const BATCH = 1_000;
const WARM_MS = 1_000;
const MEASURE_MS = 2_000;
const REPEATS = 3;
const GOAL_PER_S = 200_000;
export const PROFILE_DIR = resolve(ROOT, 'bench/results/profiles');

type Call = (id: string) => Promise<number>;

interface Measured {
  runtimePerS: number[];
  directPerS: number[];
  runtimeSequentialPerS: number;
  directSequentialPerS: number;
}

/** Messages per second for `call` fired in batches of `batch` concurrent calls over `ids`. */
async function rate(call: Call, ids: readonly string[], batch: number, ms: number): Promise<number> {
  const pending: Promise<number>[] = new Array<Promise<number>>(batch);
  let sent = 0;
  const start = performance.now();
  const until = start + ms;
  while (performance.now() < until) {
    for (let i = 0; i < batch; i++) pending[i] = call(ids[(sent + i) % ids.length]!);
    await Promise.all(pending);
    sent += batch;
  }
  return sent / ((performance.now() - start) / 1000);
}

/**
 * Runs in a child process (bench/child.ts) so the figures come from a fresh heap and JIT, and so
 * `--cpu-prof` sees only this. `runtimeOnly` skips the baseline (when profiling the runtime).
 */
export async function measureThroughput(runtimeOnly: boolean): Promise<Measured> {
  const system = await benchSystem({ DATABASE_URL: process.env.DATABASE_URL! }, [counterBehaviour], { idleMs: 3_600_000 });
  try {
    const ids = Array.from({ length: ACTORS }, (_, i) => String(i));
    const viaRuntime: Call = (id) => system.actors.ask('benchCounter', id, { type: 'count' });
    // The baseline does the same per-message work a handler would (find the actor's state, bump it), minus the runtime.
    const counters = new Map(ids.map((id) => [`benchCounter:${id}`, { n: 0 }]));
    const handle = async (kind: string, id: string, message: { type: string }) => (message.type === 'count' ? ++counters.get(`${kind}:${id}`)!.n : 0);
    const direct: Call = (id) => handle('benchCounter', id, { type: 'count' });

    await rate(viaRuntime, ids, BATCH, WARM_MS); // activates every actor, lets the JIT settle
    if (!runtimeOnly) await rate(direct, ids, BATCH, WARM_MS);
    const measured: Measured = { runtimePerS: [], directPerS: [], runtimeSequentialPerS: 0, directSequentialPerS: 0 };
    // Interleaved, so drift (thermal, a noisy neighbour) hits both sides alike.
    for (let r = 0; r < REPEATS; r++) {
      measured.runtimePerS.push(await rate(viaRuntime, ids, BATCH, MEASURE_MS));
      if (!runtimeOnly) measured.directPerS.push(await rate(direct, ids, BATCH, MEASURE_MS));
    }
    if (!runtimeOnly) {
      measured.runtimeSequentialPerS = await rate(viaRuntime, ids, 1, MEASURE_MS);
      measured.directSequentialPerS = await rate(direct, ids, 1, MEASURE_MS);
    }
    return measured;
  } finally {
    await system.close();
  }
}

export async function throughput(options: { cpuProf: boolean }): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(async () => {
    const databaseUrl = await benchDatabase('throughput');
    const env = { DATABASE_URL: databaseUrl, APP_KEY };
    const measured = lastJsonLine<Measured>(await runChild([CHILD, 'throughput'], env, 120_000), 'throughput child');
    const runtime = median(measured.runtimePerS);
    const direct = median(measured.directPerS);
    const notes = [`single-node mode, ${ACTORS} benchCounter actors (one synchronous handler), ${BATCH} asks in flight, median of ${REPEATS} x ${MEASURE_MS / 1000} s`];
    if (options.cpuProf) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      const profiled = await runChild(['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, CHILD, 'throughput', '--runtime-only'], env, 120_000);
      lastJsonLine<Measured>(profiled, 'profiled throughput child');
      const file = newestProfile(PROFILE_DIR);
      if (file) {
        notes.push(`cpu profile (runtime only): ${file.slice(ROOT.length + 1)}; top self time:`);
        for (const spot of hotSpots(file)) notes.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
      }
    }
    return {
      name: 'throughput',
      title: 'local ask throughput (single node, in process)',
      goal: `>= ${GOAL_PER_S.toLocaleString('en')} asks/s on one core`,
      pass: runtime >= GOAL_PER_S,
      figures: {
        asks_per_s: Math.round(runtime),
        sequential_asks_per_s: Math.round(measured.runtimeSequentialPerS),
        overhead_us_per_ask: round(1e6 / runtime - 1e6 / direct, 2),
      },
      baseline: { direct_calls_per_s: Math.round(direct), sequential_direct_calls_per_s: Math.round(measured.directSequentialPerS) },
      settings: { actors: ACTORS, in_flight: BATCH, repeats: REPEATS, measure_ms: MEASURE_MS },
      notes,
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
