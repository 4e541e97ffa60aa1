import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds a process has used so far (user + system), from /proc: its own cost, whatever else shares the machine. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat; after the ") " split they sit at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of a process, MB. */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round(kb / 1024);
}

/** Busy and total CPU time of the whole machine so far (all cores, in clock ticks), from /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = values.map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  return { busy: total - idle, total };
}

/** CPU use between `start()` and `read()`: per named process in cores (1.0 = one core busy), and the whole machine's busy share. */
export class CpuMeter {
  private readonly since = new Map<string, number>();
  private machine = machineTicks();
  private startedAt = process.hrtime.bigint();

  constructor(private readonly pids: Record<string, number>) {
    this.start();
  }

  start(): void {
    for (const [name, pid] of Object.entries(this.pids)) this.since.set(name, this.seconds(name, pid));
    this.machine = machineTicks();
    this.startedAt = process.hrtime.bigint();
  }

  read(): Record<string, number> {
    const wall = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    const cores: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) cores[name] = (this.seconds(name, pid) - this.since.get(name)!) / wall;
    const now = machineTicks();
    cores.machine_busy = (now.busy - this.machine.busy) / Math.max(1, now.total - this.machine.total);
    return cores;
  }

  private seconds(name: string, pid: number): number {
    if (pid === process.pid) {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1e6;
    }
    try {
      return cpuSeconds(pid);
    } catch {
      return this.since.get(name) ?? 0;
    }
  }
}

/**
 * CPU time every thread of a process has run so far, in nanoseconds (the scheduler's own account,
 * /proc/<pid>/task/<tid>/schedstat): precise enough to charge a few milliseconds of work to one
 * request, where /proc/<pid>/stat counts 10 ms ticks.
 */
export function threadCpuNs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile (node's own threads live as long as the process)
    }
  }
  return total;
}
