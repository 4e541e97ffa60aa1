import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { cleanupAll, exitCleanlyOnSignals } from './support/cleanup';
import { ROOT } from './support/processes';
import { format, machine, source, type BenchResult, type Machine } from './support/report';
import { sweepLeftovers } from './support/resources';
import { failover } from './failover';
import { fanout } from './fanout';
import { heartbeats } from './heartbeats';
import { inbox } from './inbox';
import { indexing } from './indexing';
import { latency } from './latency';
import { liveInbox } from './liveInbox';
import { memory } from './memory';
import { visitorMemory } from './visitorMemory';
import { retrieval } from './retrieval';
import { search } from './search';
import { throughput } from './throughput';
import { streams } from './streams';
import { ttfd } from './ttfd';
import { widgetSize } from './widgetSize';

const RESULTS = resolve(ROOT, 'bench/results/latest.json');

interface Options {
  rounds: number;
  cpuProf: boolean;
  scale: number;
}

/** In run order: the quick in-process ones first, the 6-minute failover last. */
const BENCHMARKS: Record<string, { about: string; run: (options: Options) => Promise<BenchResult | BenchResult[]> }> = {
  throughput: { about: 'local ask throughput, single node (~20 s)', run: (o) => throughput(o) },
  memory: { about: 'heap per active actor, 50,000 actors (~10 s)', run: () => memory() },
  visitorMemory: { about: 'heap per known visitor, 30,000 visitors on one web node, online and after they left and passivated (~4 min)', run: () => visitorMemory() },
  latency: { about: 'cross-node ask round trip vs raw Redis pub/sub (~15 s)', run: () => latency() },
  indexing: { about: 'knowledge indexing throughput, 1,000,000-character source (~15 s)', run: () => indexing() },
  retrieval: { about: 'retrieval quality on the US Constitution, 156 + 85 questions: hit@3, MRR (~5 s)', run: () => retrieval() },
  search: { about: 'retrieval latency with 100,000 passages in the workspace (~90 s)', run: () => search() },
  heartbeats: { about: 'widget heartbeats over HTTP, one pinned web node, 20,000 visitors: CPU per beat vs bare node:http, and new visitors arriving (~2 min)', run: (o) => heartbeats(o) },
  widgetSize: { about: 'GET /widget.js gzipped size, as served (~1 s)', run: () => widgetSize() },
  ttfd: { about: 'widget stream time to first delta added by Parley, local and cross-node actor, 2 web nodes, and the node CPU to start a stream (~1 min)', run: (o) => ttfd({ cpuProf: o.cpuProf }) },
  streams: { about: 'concurrent widget streams at 30 tokens/s: 250, 500, 2,000, one web node (~12 min)', run: (o) => streams(o) },
  inbox: { about: 'GET /api/agent/inbox over HTTP, 100,000 conversations in the workspace (~6 min)', run: (o) => inbox({ cpuProf: o.cpuProf }) },
  fanout: { about: 'message.created to 10,000 agent sockets over 3 web nodes (~4 min)', run: () => fanout() },
  liveInbox: { about: '50 agents on 3 web nodes watching, typing, replying while 500 visitors chat (~2 min)', run: (o) => liveInbox({ scale: o.scale }) },
  failover: { about: 'kill -9 failover, 3 nodes, production timings (~8 s per round)', run: (o) => failover({ rounds: o.rounds, log }) },
};

interface ResultsFile {
  machine: Machine;
  updatedAt: string;
  results: Record<string, BenchResult>;
}

const USAGE = `Usage: npm run bench [-- <name>... [--rounds N] [--scale F] [--cpu-prof]]

  ${Object.entries(BENCHMARKS)
    .map(([name, b]) => `${name.padEnd(11)} ${b.about}`)
    .join('\n  ')}

  --rounds N   failover rounds (default 20)
  --scale F    liveInbox: agents and visitors times F (default 1; 0.2 is 10 agents and 100 visitors);
               heartbeats: visitors times F (default 20,000)
  --cpu-prof   throughput: also profile the runtime and list its hot spots (bench/results/profiles/);
               heartbeats: profile the web node the same way
               streams, ttfd: the web node (ttfd: node a, whose stream starts are measured)

Results: printed, and merged by name into bench/results/latest.json. Exit code 1 only if a benchmark
could not run; a missed goal is reported as FAIL but is a result, not an error.`;

function log(line: string): void {
  process.stdout.write(`  ${line}\n`);
}

function parse(argv: string[]): { names: string[]; options: Options; help: boolean } {
  const names: string[] = [];
  const options: Options = { rounds: 20, cpuProf: false, scale: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { names, options, help: true };
    if (arg === '--cpu-prof') options.cpuProf = true;
    else if (arg === '--rounds') {
      options.rounds = Number(argv[++i]);
      if (!Number.isInteger(options.rounds) || options.rounds < 1) throw new Error(`--rounds needs a positive integer\n\n${USAGE}`);
    } else if (arg === '--scale') {
      options.scale = Number(argv[++i]);
      if (!(options.scale > 0 && options.scale <= 1)) throw new Error(`--scale needs a number in (0, 1]\n\n${USAGE}`);
    } else if (arg in BENCHMARKS) names.push(arg);
    else throw new Error(`unknown argument ${arg}\n\n${USAGE}`);
  }
  return { names: names.length ? names : Object.keys(BENCHMARKS), options, help: false };
}

/** Merged by name, so running one benchmark refreshes its entry and keeps the others'. */
function save(machineInfo: Machine, results: BenchResult[]): void {
  const previous: ResultsFile | undefined = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as ResultsFile) : undefined;
  const merged: ResultsFile = { machine: machineInfo, updatedAt: new Date().toISOString(), results: { ...previous?.results } };
  for (const result of results) merged.results[result.name] = result;
  // Canonical order, whatever order the entries were written in; a benchmark's extra results (heartbeats' `arrivals`) follow the named ones.
  const order = Object.keys(BENCHMARKS);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  merged.results = Object.fromEntries(Object.entries(merged.results).sort(([a], [b]) => rank(a) - rank(b)));
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(merged, null, 2)}\n`);
}

async function main(): Promise<number> {
  const { names, options, help } = parse(process.argv.slice(2));
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  exitCleanlyOnSignals();
  const swept = await sweepLeftovers();
  if (swept.length) log(`removed leftovers of dead bench runs: ${swept.join(', ')}`);
  const machineInfo = await machine();
  process.stdout.write(`Parley benchmarks on ${machineInfo.cpus} x ${machineInfo.cpuModel}, Node ${machineInfo.node}, PostgreSQL ${machineInfo.postgres}, Redis ${machineInfo.redis}; load average ${machineInfo.loadAverage}\n`);

  const results: BenchResult[] = [];
  let errors = 0;
  for (const name of names) {
    process.stdout.write(`\n== ${name}: ${BENCHMARKS[name]!.about}\n`);
    try {
      // Taken before the run: other engineers' edits (and rebuilds of dist/) may land while it runs.
      const measured = source();
      const outcome = await BENCHMARKS[name]!.run(options);
      for (const each of Array.isArray(outcome) ? outcome : [outcome]) {
        const result = { ...each, source: measured };
        results.push(result);
        process.stdout.write(`${format(result)}\n`);
      }
    } catch (error) {
      errors++;
      process.stdout.write(`ERROR ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
  }
  if (results.length) save(machineInfo, results);

  process.stdout.write('\nSummary\n');
  for (const r of results) process.stdout.write(`  ${r.pass ? 'PASS' : 'FAIL'}  ${r.name.padEnd(11)} ${r.goal}\n`);
  if (errors) process.stdout.write(`  ${errors} benchmark(s) could not run (see ERROR above)\n`);
  if (results.length) process.stdout.write(`Results written to ${RESULTS.slice(ROOT.length + 1)}\n`);
  return errors ? 1 : 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  })
  .then(async (code) => {
    await cleanupAll();
    // Pools and sockets the runtime leaves behind (if any) must not keep a finished run alive.
    process.exit(code);
  });
