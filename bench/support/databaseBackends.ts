import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (utime + stime) each live backend of one database has used so far, by pid. */
export type BackendTimes = Map<number, number>;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // exited meanwhile, or not ours to read
  }
}

/**
 * The CPU used so far by every backend connected to `database`, found by its process title
 * (`postgres: user database host(port) state`): the Postgres work of one benchmark's own
 * connections, which other users of the same server (the shared machine's other runs) do not
 * disturb, unlike the whole server's total (`postgresCpuSeconds`). Not counted: the server's shared
 * processes (WAL writer, checkpointer), and a backend that both started and exited between two readings.
 */
export function databaseBackends(database: string): BackendTimes {
  const times: BackendTimes = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
    if (!read(`/proc/${entry}/cmdline`)?.replace(/\0/g, ' ').includes(` ${database} `)) continue;
    // After ") " the fields start at state (3): utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    times.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return times;
}

/** Seconds of backend CPU between two readings; a backend that started meanwhile counts whole, one that exited counts until the first reading. */
export function backendCpuBetween(before: BackendTimes, after: BackendTimes): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}

/** A running total of `database`'s backend CPU, counted as `backendCpuBetween` counts it from one call to the next. */
export function backendMeter(database: string): () => number {
  let last = databaseBackends(database);
  let total = 0;
  return () => {
    const now = databaseBackends(database);
    total += backendCpuBetween(last, now);
    last = now;
    return total;
  };
}
