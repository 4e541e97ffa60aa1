/**
 * Everything the bench creates (processes, databases, Redis keys) registers how to undo it here. Steps
 * run last-in first-out, each exactly once: when the benchmark that made them ends, or all at once
 * when the run is interrupted (SIGINT, SIGTERM, SIGHUP) or crashes.
 */
interface Step {
  what: string;
  run: () => Promise<unknown> | unknown;
}

const steps: Step[] = [];
const inFlight = new Set<Promise<void>>();

/** Registers an undo step; the returned function removes it (for things already cleaned up by hand). */
export function defer(what: string, run: Step['run']): () => void {
  const step = { what, run };
  steps.push(step);
  return () => {
    const at = steps.indexOf(step);
    if (at >= 0) steps.splice(at, 1);
  };
}

async function unwind(mark: number): Promise<void> {
  while (steps.length > mark) {
    // Popped synchronously, so a signal arriving mid-unwind never runs a step twice.
    const step = steps.pop()!;
    const running = (async () => {
      try {
        await step.run();
      } catch (error) {
        process.stderr.write(`bench cleanup: ${step.what} failed: ${String(error)}\n`);
      }
    })();
    inFlight.add(running);
    await running;
    inFlight.delete(running);
  }
  await Promise.all(inFlight);
}

/** Runs `work`, then undoes whatever it registered, even when it throws. */
export async function scoped<T>(work: () => Promise<T>): Promise<T> {
  const mark = steps.length;
  try {
    return await work();
  } finally {
    await unwind(mark);
  }
}

export function cleanupAll(): Promise<void> {
  return unwind(0);
}

/** The first signal cleans up and exits; a second one exits at once (the user insists). */
export function exitCleanlyOnSignals(): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\nbench: ${signal}, cleaning up (processes, databases, Redis keys)...\n`);
    void cleanupAll().finally(() => process.exit(130));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
}
