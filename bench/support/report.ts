import { cpus, release, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import { adminQuery, REDIS_URL } from './resources';

/** One benchmark's outcome, as printed and as stored in bench/results/latest.json. */
export interface BenchResult {
  name: string;
  title: string;
  /** The target, in words; `pass` says whether this run met it. */
  goal: string;
  pass: boolean;
  /** What the runtime measured; the unit is in each key (`_ms`, `_per_s`, `_bytes`, `_x`). */
  figures: Record<string, number>;
  /** The same measurement without the runtime, taken in the same run. */
  baseline: Record<string, number>;
  /** How it was measured (sample sizes, timings), so two results files can be compared. */
  settings: Record<string, number | string>;
  notes: string[];
  startedAt: string;
  seconds: number;
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
}

export async function machine(): Promise<Machine> {
  const [row] = await adminQuery<{ server_version: string }>('SHOW server_version');
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  try {
    const info = await redis.info('server');
    return {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 2 ** 30),
      os: `${process.platform} ${release()}`,
      node: process.version,
      postgres: row?.server_version ?? 'unknown',
      redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
    };
  } finally {
    redis.disconnect();
  }
}

const show = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2));

/** The readable block printed after a benchmark. */
export function format(result: BenchResult): string {
  const lines = [`${result.pass ? 'PASS' : 'FAIL'}  ${result.name}: ${result.title}`, `      goal: ${result.goal}`];
  const width = Math.max(...[...Object.keys(result.figures), ...Object.keys(result.baseline)].map((k) => k.length), 8);
  for (const [key, value] of Object.entries(result.figures)) lines.push(`      ${key.padEnd(width)}  ${show(value)}`);
  for (const [key, value] of Object.entries(result.baseline)) lines.push(`      ${key.padEnd(width)}  ${show(value)}  (baseline)`);
  for (const note of result.notes) lines.push(`      note: ${note}`);
  lines.push(`      (${result.seconds.toFixed(0)} s)`);
  return lines.join('\n');
}
