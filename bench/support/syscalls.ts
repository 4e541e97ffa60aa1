import { readFileSync } from 'node:fs';

/**
 * Read and write system calls a process has made so far (`syscr`, `syscw` of /proc/<pid>/io, every
 * thread included). Unlike CPU time, these counts do not move with the machine's load, except where
 * the code itself batches by time (coalesced writes): the per-token figures they give compare code
 * across runs on a shared machine. Undefined when the process is gone or not ours to read.
 */
export function syscallCounts(pid: number): { reads: number; writes: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const reads = Number(/^syscr:\s+(\d+)/m.exec(text)?.[1]);
    const writes = Number(/^syscw:\s+(\d+)/m.exec(text)?.[1]);
    return Number.isFinite(reads) && Number.isFinite(writes) ? { reads, writes } : undefined;
  } catch {
    return undefined;
  }
}
