import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './processes';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
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

/**
 * Self time per function, summed over every sample: where the CPU actually was, not who called it.
 * Lines are those of dist/*.js (1-based), which tsc keeps close to the TypeScript source.
 */
export function hotSpots(file: string, top = 15): HotSpot[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const where = new Map<number, string>();
  for (const { id, callFrame } of profile.nodes) {
    const url = callFrame.url.startsWith('file://') ? relative(ROOT, new URL(callFrame.url).pathname) : callFrame.url;
    where.set(id, `${callFrame.functionName || '(anonymous)'}${url ? ` ${url}:${callFrame.lineNumber + 1}` : ''}`);
  }
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((node, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const key = where.get(node) ?? '?';
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, time]) => ({ where: key, selfPercent: Math.round((1000 * time) / total) / 10 }));
}
