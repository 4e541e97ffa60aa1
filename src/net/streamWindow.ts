/**
 * One clock for the answers a node streams while it is busy. Relaying a token costs a provider read
 * and a visitor write, each a system call and a wake-up; with many streams open, both are done once
 * per window for every stream instead of once per token. Provider sockets read once and then wait for
 * the next tick (`resumeAtTick`); visitor streams hold their deltas until the same tick
 * (`flushAtTick`). The tick resumes the waiting reads first and writes the held deltas only after the
 * event loop has read those sockets, so a token waits one window at most, not a read window and then a
 * write window.
 */

/** Above this many streams open (each side counts its own) reads and writes wait for the tick; below it nothing waits. */
export const BUSY_ABOVE = 64;

/**
 * The window: the 50 ms a token may be delayed (docs/performance.md, Concurrent streams). At 30
 * tokens/s a window holds one or two of a stream's tokens, and the gap a visitor sees between two
 * updates grows by at most the window less the provider's own gap.
 */
export const WINDOW_MS = 50;

export interface Resumable {
  resume(): void;
}

export interface Flushable {
  flush(): void;
}

const reads = new Set<Resumable>();
const writes = new Set<Flushable>();
let timer: NodeJS.Timeout | undefined;

/** Resumes `reader` at the next tick. */
export function resumeAtTick(reader: Resumable): void {
  reads.add(reader);
  timer ??= setTimeout(tick, WINDOW_MS);
}

/** Flushes `writer` at the next tick, after the reads that tick resumed. */
export function flushAtTick(writer: Flushable): void {
  writes.add(writer);
  timer ??= setTimeout(tick, WINDOW_MS);
}

/** Drops a reader or writer that ended before its tick. */
export function forget(party: Resumable | Flushable): void {
  reads.delete(party as Resumable);
  writes.delete(party as Flushable);
}

function tick(): void {
  timer = undefined;
  for (const reader of reads) reader.resume();
  reads.clear();
  // Resumed sockets with data waiting are read in this turn's poll phase, which comes after the timers;
  // an immediate runs right after that phase, so what they read is written in the same turn.
  setImmediate(flushWrites);
}

function flushWrites(): void {
  for (const writer of writes) writer.flush();
  writes.clear();
}
