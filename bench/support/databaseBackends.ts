import { readFileSync } from 'node:fs';
import { adminQuery } from './resources';

/** CPU seconds (utime + stime) each live backend of one database has used so far, by pid. */
export type BackendTimes = Map<number, number>;

function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined; // exited meanwhile, or not a local process
  }
}

/**
 * The CPU used so far by every backend connected to `database` (from `pg_stat_activity` and
 * /proc): the Postgres work of one benchmark's own connections, which other users of the same
 * server (the shared machine's other runs) do not disturb, unlike the whole server's total.
 * Not counted: the server's shared processes (WAL writer, checkpointer), and a backend that
 * both started and exited between two readings.
 */
export async function databaseBackends(database: string): Promise<BackendTimes> {
  const rows = await adminQuery<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = '${database.replace(/'/g, "''")}' AND pid <> pg_backend_pid()`);
  const times: BackendTimes = new Map();
  for (const { pid } of rows) {
    const seconds = cpuSecondsOf(pid);
    if (seconds !== undefined) times.set(pid, seconds);
  }
  return times;
}

/** Seconds of backend CPU between two readings; a backend that started meanwhile counts whole, one that exited counts until the first reading. */
export function backendCpuBetween(before: BackendTimes, after: BackendTimes): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}
