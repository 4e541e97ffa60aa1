import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { defer } from './cleanup';

/**
 * The pinned method of issue 23: the measured web node gets one core to itself (as far as this
 * machine's other users allow), the load generator, the provider stand-in and the bare baseline's
 * driver the other. Per-unit costs are then the node's CPU time from /proc (utime + stime) divided by
 * the units of work, which stays honest when other engineers' tests share the machine; wall-clock
 * latencies do not, so the load average is reported beside them.
 *
 * PostgreSQL and Redis are system services other people's tests use too. They are pinned to the
 * harness core only with `BENCH_PIN_SERVICES=1` (we may: the bench runs as root here), and their
 * previous masks are restored when the benchmark ends; by default they float over both cores and
 * the results say so.
 */
export const NODE_CORE = 0;
export const HARNESS_CORE = cpus().length > 1 ? 1 : 0;

export const pinServicesWanted = (): boolean => process.env.BENCH_PIN_SERVICES === '1';

function taskset(args: string[]): string {
  return execFileSync('taskset', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The affinity list of a process (`0,1`, `0-1`...), or undefined when it is gone. */
function affinityOf(pid: number): string | undefined {
  try {
    return /: (\S+)$/.exec(taskset(['-cp', String(pid)]))?.[1];
  } catch {
    return undefined;
  }
}

/** Pins every thread of `pid` (`-a`: libuv's pool and V8's helpers too) to `core`. False if taskset refused. */
export function pin(pid: number, core: number): boolean {
  try {
    taskset(['-a', '-cp', String(core), String(pid)]);
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (the driver: load generator, SSE reader) to the harness core, for the rest of the run. */
export function pinSelf(): void {
  pin(process.pid, HARNESS_CORE);
}

/** Every process whose command line starts with one of `names` (postmaster and its backends, redis-server). */
function processesNamed(names: readonly string[]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (names.some((name) => comm.startsWith(name))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * With BENCH_PIN_SERVICES=1: pins PostgreSQL (postmaster and every backend; new backends inherit the
 * postmaster's mask) and Redis to the harness core, and restores each one's previous mask when the
 * benchmark's scope ends. Returns what was done, for the results' notes.
 */
export function pinServices(): string {
  if (!pinServicesWanted()) return 'PostgreSQL and Redis not pinned (system services shared with other users; BENCH_PIN_SERVICES=1 pins them to the harness core)';
  const pids = processesNamed(['postgres', 'redis-server']);
  const pinned: number[] = [];
  for (const pid of pids) {
    const before = affinityOf(pid);
    if (!before || !pin(pid, HARNESS_CORE)) continue;
    pinned.push(pid);
    defer(`restore the affinity of ${pid}`, () => {
      try {
        taskset(['-a', '-cp', before, String(pid)]);
      } catch {
        // the backend has exited
      }
    });
  }
  return `PostgreSQL and Redis pinned to core ${HARNESS_CORE} (${pinned.length} of ${pids.length} processes; restored afterwards)`;
}

/** The 1-, 5- and 15-minute load averages, as reported beside every wall-clock figure. */
export function loadNow(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}

/** What the results' settings record of the method. */
export function pinningSettings(services: string): Record<string, string> {
  return { method: `node pinned to core ${NODE_CORE}, harness to core ${HARNESS_CORE}; node CPU from /proc/<pid>/stat utime+stime per unit`, services };
}
