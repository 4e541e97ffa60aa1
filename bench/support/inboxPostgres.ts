import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds the local PostgreSQL server has used so far: every live `postgres` process, plus what
 * exited ones left in the postmaster's children totals (parallel workers live for one query, so
 * they are only found there). Covers every database of the server, so other work on the same
 * server counts too. NaN when Postgres is not a local process we can read.
 */
export function postgresCpuSeconds(): number {
  let ticks = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (name !== 'postgres') continue;
    found = true;
    // After ") " the fields start at state (3): utime 14, stime 15, cutime 16, cstime 17, ppid 4.
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
    const parentIsPostgres = readName(Number(fields[1])) === 'postgres';
    if (!parentIsPostgres) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return found ? ticks / 100 : Number.NaN;
}

function readName(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return undefined;
  }
}
