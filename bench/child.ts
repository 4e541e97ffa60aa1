import { measureMemory, type MemoryMode } from './memory';
import { measureThroughput } from './throughput';
import { measureVisitorMemory, type VisitorMemoryMode } from './visitorMemory';

/**
 * Entry point of the bench's measuring children (`node [--expose-gc|--cpu-prof] dist/bench/child.js
 * <mode> ...`): in-process measurements run on a fresh heap, apart from the driver's own clutter.
 * Prints its result as the last stdout line, in JSON.
 */
async function main(): Promise<unknown> {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'throughput') return measureThroughput(args.includes('--runtime-only'));
  if (mode === 'memory') return measureMemory(args[0] as MemoryMode, Number(args[1]));
  if (mode === 'visitorMemory') return measureVisitorMemory(args[0] as VisitorMemoryMode, Number(args[1]));
  throw new Error(`unknown child mode ${String(mode)}`);
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
