import { cleanupAll, exitCleanlyOnSignals } from './cleanup';
import { format, source, type BenchResult } from './report';
import { sweepLeftovers } from './resources';
import { inbox } from '../inbox';
import { fanout } from '../fanout';

/**
 * Runs the inbox or fan-out benchmark alone (`node dist/bench/support/runOne.js inbox|fanout`), for
 * use until they are in bench/run.ts's registry; prints the result block and its JSON.
 */
const BENCHMARKS: Record<string, (cpuProf: boolean) => Promise<BenchResult>> = { inbox: (cpuProf) => inbox({ cpuProf, withoutInboxIndexes: process.argv.includes('--without-inbox-indexes') }), fanout: () => fanout({ workspaces: Number(process.argv[process.argv.indexOf('--workspaces') + 1]) || undefined }) };

async function main(): Promise<number> {
  const name = process.argv[2] ?? '';
  const run = BENCHMARKS[name];
  if (!run) throw new Error(`usage: runOne ${Object.keys(BENCHMARKS).join('|')}`);
  exitCleanlyOnSignals();
  const swept = await sweepLeftovers();
  if (swept.length) process.stdout.write(`removed leftovers of dead bench runs: ${swept.join(', ')}\n`);
  const measured = source();
  const result = { ...(await run(process.argv.includes('--cpu-prof'))), source: measured };
  process.stdout.write(`${format(result)}\n${JSON.stringify(result)}\n`);
  return 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error)}\n`);
    return 1;
  })
  .then(async (code) => {
    await cleanupAll();
    process.exit(code);
  });
