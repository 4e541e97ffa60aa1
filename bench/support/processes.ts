import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { SHARD_COUNT } from '../../src/actors/cluster/shards';
import { Running } from '../../test/support/processes';
import { defer } from './cleanup';

/** The project root, from dist/bench/support. */
export const ROOT = resolve(__dirname, '../../..');
export const CLI = resolve(ROOT, 'dist/src/cli.js');
export const NODE_MAIN = resolve(ROOT, 'dist/test/support/cluster/nodeMain.js');
export const CHILD = resolve(ROOT, 'dist/bench/child.js');
const GUARD = resolve(__dirname, 'guard.js');

/**
 * A child's environment: ours, minus cluster timings a developer's shell may export (each benchmark
 * says which timings it runs with), plus the orphan guard and `set`.
 */
export function childEnv(set: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['CLUSTER_HEARTBEAT_MS', 'CLUSTER_LEASE_TTL_MS', 'REDIS_URL', 'DATABASE_URL', 'REDIS_PREFIX', 'NODE_ID', 'PORT']) delete env[name];
  env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require ${GUARD}`.trim();
  return { ...env, ...set };
}

export interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node ...args` to completion (killed after `timeoutMs`, or by the cleanup if interrupted). */
export function runChild(args: string[], env: Record<string, string>, timeoutMs: number): Promise<ChildOutcome> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: childEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const undo = defer(`kill child ${child.pid ?? '?'}`, () => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      undo();
      done({ code, stdout, stderr });
    });
  });
}

/** The last stdout line of a bench child, which is its result as JSON. */
export function lastJsonLine<T>(outcome: ChildOutcome, what: string): T {
  const line = outcome.stdout.trim().split('\n').at(-1);
  if (outcome.code !== 0 || !line) throw new Error(`${what} failed (exit ${String(outcome.code)}):\n${outcome.stdout}\n${outcome.stderr}`);
  return JSON.parse(line) as T;
}

/**
 * A long-running child whose JSON log lines can be awaited (the test harness's Running), registered
 * for cleanup before it has said anything, so one that fails to start is still killed.
 */
export function startLogged(script: string, what: string, env: Record<string, string>): { running: Running; undo: () => void } {
  const running = new Running(script, [], { env: childEnv(env) });
  const undo = defer(`kill ${what}`, () => running.child.kill('SIGKILL'));
  return { running, undo };
}

/** Once started, nothing reads a child's logs: drop them so long runs do not grow this heap. */
export function forgetLogs(running: Running): void {
  running.child.stdout!.on('data', () => void running.lines.splice(0));
}

export interface NodeState {
  member: string;
  owned: number[];
  active: number;
}

/**
 * A real web node (test/support/cluster/nodeMain: startWeb plus the probe kind and a loopback control
 * port). Unlike the test harness's ClusterNode, the process is registered for cleanup before it has
 * even said it is listening, so a node that fails to start is still killed.
 */
export class BenchNode {
  private constructor(
    readonly name: string,
    private readonly process: Running,
    private readonly control: string,
    private readonly undo: () => void,
  ) {}

  static async start(name: string, env: Record<string, string>): Promise<BenchNode> {
    const { running, undo } = startLogged(NODE_MAIN, `node ${name}`, { ...env, NODE_ID: name, PORT: '0', LOG_LEVEL: 'info' });
    const control = await running.waitForLog((entry) => entry.msg === 'control listening', 60_000);
    forgetLogs(running);
    return new BenchNode(name, running, `http://127.0.0.1:${String(control.port)}`, undo);
  }

  get alive(): boolean {
    return this.process.running;
  }

  async state(): Promise<NodeState> {
    const response = await fetch(`${this.control}/state`, { signal: AbortSignal.timeout(2_000) });
    return (await response.json()) as NodeState;
  }

  /** kill -9: no leave, no lease release, exactly as a crashed machine. Resolves once it has exited. */
  async crash(): Promise<void> {
    if (!this.alive) return;
    this.process.child.kill('SIGKILL');
    await this.process.exited;
    this.undo();
  }
}

/** Resolves when the live nodes together serve every shard exactly once and each serves some. */
export async function settled(nodes: readonly BenchNode[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const owned = await Promise.all(nodes.filter((n) => n.alive).map((n) => n.state().then((s) => s.owned, () => [] as number[])));
    const all = owned.flat();
    if (all.length === SHARD_COUNT && new Set(all).size === SHARD_COUNT && owned.every((o) => o.length > 0)) return;
    if (Date.now() > until) throw new Error(`cluster did not settle in ${timeoutMs} ms: ${owned.map((o) => o.length).join('+')} shards owned`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
