import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { Redis } from 'ioredis';
import { ROOT } from './processes';
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
  /** Which code was measured (the working tree may hold uncommitted runtime changes). */
  source?: Source;
  startedAt: string;
  seconds: number;
}

export interface Source {
  commit: string;
  /** Uncommitted changes anywhere in the tree. */
  dirty: boolean;
  /** sha256 (first 12 hex) of every file under src/actors: tells two runs of the same runtime apart from different ones. */
  actors: string;
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
  /** 1-minute load average when the run started: other work on the machine skews every figure. */
  loadAverage: number;
}

export async function machine(): Promise<Machine> {
  const [row] = await adminQuery<{ server_version: string }>('SHOW server_version');
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  try {
    const info = await redis.info('server');
    return {
      ...hardware(),
      postgres: row?.server_version ?? 'unknown',
      redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
      loadAverage: loadAverage(),
    };
  } finally {
    redis.disconnect();
  }
}

/** What the process runs on (the chaos suite reports it too). */
export function hardware(): Pick<Machine, 'cpus' | 'cpuModel' | 'memoryGb' | 'os' | 'node'> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
  };
}

/** The 1-minute load average, to two decimals. */
export const loadAverage = (): number => Math.round(loadavg()[0]! * 100) / 100;

/** The commit measured and whether the tree had uncommitted changes. */
export function commitOf(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  return { commit: git('rev-parse', '--short=12', 'HEAD'), dirty: git('status', '--porcelain').length > 0 };
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

export function source(): Source {
  const hash = createHash('sha256');
  for (const file of files(join(ROOT, 'src/actors')).sort()) hash.update(relative(ROOT, file)).update(readFileSync(file));
  return { ...commitOf(), actors: hash.digest('hex').slice(0, 12) };
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
