import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { defer } from './cleanup';

/** Instructions counted by valgrind's callgrind (bench/beatInstructions.ts, bench/arrivalInstructions.ts): the same count whatever else runs on the machine. */

/** Under callgrind the node runs tens of times slower: leases long enough that it never loses its shards meanwhile. */
export const SLOW_CLUSTER = { CLUSTER_HEARTBEAT_MS: '20000', CLUSTER_LEASE_TTL_MS: '300000' };

export interface Counted {
  child: ChildProcess;
  port: number;
  outDir: string;
}

/** Starts `script` under callgrind, instrumentation off, and waits for its `listening` log line. */
export async function underCallgrind(script: string, env: NodeJS.ProcessEnv): Promise<Counted> {
  const outDir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outDir}/cg.out`, process.execPath, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  defer(`stop ${script}`, () => {
    child.kill('SIGKILL');
    rmSync(outDir, { recursive: true, force: true });
  });
  let buffered = '';
  const warnings: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (/"level":(?:[4-6]\d)/.test(line) && warnings.length < 20) warnings.push(line.slice(0, 600));
  });
  process.once('exit', () => warnings.length && process.stderr.write(`${script} warned:\n${warnings.join('\n')}\n`));
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not listen within 10 minutes`)), 600_000);
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        if (!line.includes('"listening"')) continue;
        clearTimeout(timer);
        done(Number((JSON.parse(line) as { port: number }).port));
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.stderr!.resume();
    child.once('exit', (code) => fail(new Error(`${script} exited (${String(code)})`)));
  });
  return { child, port, outDir };
}

const control = (counted: Counted, ...args: string[]) => execFileSync('callgrind_control', [...args, String(counted.child.pid)], { stdio: 'ignore' });

export interface Count {
  /** Every thread's instructions. */
  ir: number;
  /** Less V8's worker threads (the optimizing compiler still tiering code up, concurrent GC): the JavaScript thread's own work, which varies far less between runs. */
  mainIr: number;
}

/** The newest dump's totals (all threads, and less the worker threads'), and the dump itself where `keepAs` names a file (for callgrind_annotate). */
function newestDump(counted: Counted, keepAs?: string): Count {
  const files = readdirSync(counted.outDir).filter((name) => /^cg\.out\.\d+$/.test(name));
  const newest = join(counted.outDir, files.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop()!);
  if (keepAs) copyFileSync(newest, keepAs);
  // `totals`, not `summary`: after instrumentation was switched within the dump's span, callgrind writes `summary: 0`.
  const text = readFileSync(newest, 'utf8');
  const ir = Number((/^totals: (\d+)/m.exec(text) ?? /^summary: (\d+)/m.exec(text))?.[1]);
  const inclusive = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', newest], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const workers = Number(/^\s*([\d,]+)\s.*PlatformWorkerThread/m.exec(inclusive)?.[1]?.replaceAll(',', '') ?? 0);
  return { ir, mainIr: ir - workers };
}

/**
 * Instructions summed over several windows of one phase: instrumentation stays on for the whole
 * phase (switching it discards every translation, which slows the node for seconds after), and a
 * dump is taken where each window opens and where it closes; a window's count is its closing dump's.
 * `run` calls `open()` where a window starts and `close()` where it ends (both block this process
 * until the node dumped). `seconds`: the windows' wall time added up, to take off idle.
 */
export async function windowedInstructions(
  counted: Counted,
  run: (open: () => void, close: () => void) => Promise<void>,
  keepAs?: string,
): Promise<Count & { seconds: number; windows: number; each: Array<Count & { seconds: number }> }> {
  control(counted, '-i', 'on');
  let ir = 0;
  let mainIr = 0;
  let seconds = 0;
  let windows = 0;
  const each: Array<Count & { seconds: number }> = [];
  let openedAt: number | undefined;
  const open = () => {
    control(counted, '-d');
    openedAt = performance.now();
  };
  const close = () => {
    if (openedAt === undefined) return;
    control(counted, '-d');
    const window = { seconds: (performance.now() - openedAt) / 1000, ...newestDump(counted, keepAs && `${keepAs}.${windows + 1}`) };
    openedAt = undefined;
    windows++;
    ir += window.ir;
    mainIr += window.mainIr;
    seconds += window.seconds;
    each.push(window);
  };
  try {
    await run(open, close);
    close();
  } finally {
    control(counted, '-i', 'off');
  }
  return { ir, mainIr, seconds, windows, each };
}

/** Instructions run between now and `done`: instrumentation on, the phase, a dump, instrumentation off. */
export async function instructions(counted: Counted, phase: () => Promise<void>, keepAs?: string): Promise<Count & { seconds: number }> {
  control(counted, '-i', 'on');
  control(counted, '-z');
  const start = performance.now();
  await phase();
  const seconds = (performance.now() - start) / 1000;
  control(counted, '-d');
  control(counted, '-i', 'off');
  return { ...newestDump(counted, keepAs), seconds };
}

/** `count` windows of `ms` each with no request sent: the node's background, to take off the measured windows. */
export function idleWindows(counted: Counted, count: number, ms: number): ReturnType<typeof windowedInstructions> {
  return windowedInstructions(counted, async (open, close) => {
    for (let n = 0; n < count; n++) {
      open();
      await sleep(ms);
      close();
    }
  });
}
