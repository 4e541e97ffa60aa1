import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { ROOT } from '../../bench/support/processes';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
  /** 1-minute load average when the load started and when it stopped: other work on the machine skews every figure. */
  loadAverageStart: number;
  loadAverageEnd: number;
  /** Share of all cores busy during the load (everything on the machine, not only this run). */
  machineBusyShare: number;
}

export interface Source {
  commit: string;
  /** Uncommitted changes anywhere in the tree. */
  dirty: boolean;
}

export function hardware(): Pick<Machine, 'cpus' | 'cpuModel' | 'memoryGb' | 'os' | 'node'> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
  };
}

export const loadAverage = (): number => Math.round(loadavg()[0]! * 100) / 100;

export function source(): Source {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  return { commit: git('rev-parse', '--short=12', 'HEAD'), dirty: git('status', '--porcelain').length > 0 };
}
