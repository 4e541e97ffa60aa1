import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './processes';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  where: string;
  selfPercent: number;
}

/** The newest .cpuprofile in `dir` (node --cpu-prof names files by time and pid). */
export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return files.map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** A stretch of the monotonic clock (microseconds, `process.hrtime` / 1000: the clock V8 stamps samples with). */
export interface Window {
  fromUs: number;
  toUs: number;
}

/** Now on the clock of `Window`. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time per function, summed over every sample (or only those inside `windows`, e.g. one phase
 * of a benchmark): where the CPU actually was, not who called it.
 * Lines are those of dist/*.js (1-based), which tsc keeps close to the TypeScript source.
 */
export function hotSpots(file: string, top = 15, windows?: readonly Window[]): HotSpot[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const where = new Map<number, string>();
  for (const { id, callFrame } of profile.nodes) {
    const url = callFrame.url.startsWith('file://') ? relative(ROOT, new URL(callFrame.url).pathname) : callFrame.url;
    where.set(id, `${callFrame.functionName || '(anonymous)'}${url ? ` ${url}:${callFrame.lineNumber + 1}` : ''}`);
  }
  const self = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((node, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (windows && !windows.some((w) => at >= w.fromUs && at <= w.toUs)) return;
    const key = where.get(node) ?? '?';
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, time]) => ({ where: key, selfPercent: Math.round((1000 * time) / total) / 10 }));
}
