import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
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
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${outDir}/cg.out`, process.execPath, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * Instructions run between now and `done`: instrumentation on, the phase, a dump, instrumentation off.
 * `ir` counts every thread; `mainIr` the main thread's alone (the JavaScript, without V8's
 * background compiler and concurrent marking, which a phase soon after start-up runs plenty of).
 */
export async function instructions(counted: Counted, phase: () => Promise<void>): Promise<{ ir: number; mainIr: number; seconds: number }> {
  control(counted, '-i', 'on');
  control(counted, '-z');
  const start = performance.now();
  await phase();
  const seconds = (performance.now() - start) / 1000;
  control(counted, '-d');
  control(counted, '-i', 'off');
  // One file per thread and dump (--separate-threads): cg.out.<dump>-<thread>, thread 01 the main one.
  const dumps = readdirSync(counted.outDir)
    .map((name) => /^cg\.out\.(\d+)-(\d+)$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null);
  const newest = Math.max(...dumps.map((match) => Number(match[1])));
  let ir = 0;
  let mainIr = 0;
  for (const [name, , thread] of dumps.filter((match) => Number(match[1]) === newest)) {
    // CALLGRIND_KEEP=<dir>: each phase's dumps are kept there (for callgrind_annotate); the output directory itself goes with the node.
    if (process.env.CALLGRIND_KEEP) copyFileSync(join(counted.outDir, name), join(process.env.CALLGRIND_KEEP, `cg.${String(counted.child.pid)}.${name.slice('cg.out.'.length)}`));
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(counted.outDir, name), 'utf8'))?.[1] ?? 0);
    ir += total;
    if (Number(thread) === 1) mainIr = total;
  }
  return { ir, mainIr, seconds };
}
