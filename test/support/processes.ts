import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { TEST_ENV } from './env';

/** The project root, from dist/test/support. */
export const ROOT = resolve(__dirname, '../../..');
export const CLI = resolve(ROOT, 'dist/src/cli.js');
export const SERVER = resolve(ROOT, 'dist/src/server.js');

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A child environment: this process's, plus `set`, minus `unset`. */
export function childEnv(set: Record<string, string> = {}, unset: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...set };
  for (const name of unset) delete env[name];
  return env;
}

/**
 * Runs `node <script> ...args` to completion and collects its output (never rejects on a non-zero exit).
 * Its stdin is `input` when given, else empty.
 */
export function runNode(
  script: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string },
): Promise<Finished> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: options.env, cwd: options.cwd ?? ROOT, stdio: 'pipe' });
    // A child that exits before reading (a refused flag) must not fail the test with EPIPE.
    child.stdin.on('error', () => undefined).end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${script} ${args.join(' ')} did not finish within ${options.timeoutMs ?? 15_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 15_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

/** `parley ...args` against the test run's database (TEST_ENV), unless `env` says otherwise; `input` is its stdin. */
export function cli(args: string[], env: NodeJS.ProcessEnv = childEnv(TEST_ENV), input?: string): Promise<Finished> {
  return runNode(CLI, args, { env, input });
}

/** The one JSON object a CLI run printed; fails unless stdout is exactly one line holding a JSON object. */
export function jsonLine(run: Finished): Record<string, unknown> {
  const lines = run.stdout.split('\n');
  assert.equal(lines.length, 2, `expected one line on stdout, got: ${JSON.stringify(run.stdout)} (stderr: ${run.stderr})`);
  assert.equal(lines[1], '', 'stdout must end with a newline');
  const parsed: unknown = JSON.parse(lines[0]!);
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `not a JSON object: ${lines[0]}`);
  return parsed as Record<string, unknown>;
}

/** Runs the CLI, asserts exit 0 and one JSON line, and returns that object. */
export async function cliOk(args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<Record<string, unknown>> {
  const run = await cli(args, env, input);
  assert.equal(run.code, 0, `parley ${args.join(' ')} exited ${run.code}: ${run.stdout} ${run.stderr}`);
  return jsonLine(run);
}

/** Runs the CLI, asserts exit 1 and one JSON line with a string `message`, and returns that object. */
export async function cliFails(args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<Record<string, unknown>> {
  const run = await cli(args, env, input);
  assert.equal(run.code, 1, `parley ${args.join(' ')} should exit 1, exited ${run.code}: ${run.stdout} ${run.stderr}`);
  const body = jsonLine(run);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  return body;
}

/** The `errors` of a failed command's body (field -> messages), checked to be well formed. */
export function errorsOf(body: Record<string, unknown>): Record<string, string[]> {
  const errors = body.errors;
  assert.ok(errors !== null && typeof errors === 'object' && !Array.isArray(errors), `no errors object: ${JSON.stringify(body)}`);
  for (const [field, messages] of Object.entries(errors)) {
    assert.ok(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'), `errors.${field}`);
  }
  return errors as Record<string, string[]>;
}

/** Narrows a printed JSON value to an object and checks it has exactly these keys. */
export function objectWithKeys(value: unknown, keys: string[], what = 'value'): Record<string, unknown> {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${what} is not an object: ${JSON.stringify(value)}`);
  assert.deepEqual(Object.keys(value).sort(), [...keys].sort(), `${what} keys`);
  return value as Record<string, unknown>;
}

/** A long-running node process whose stdout is read line by line (pino JSON logs). */
export class Running {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #partial = '';
  #waiters: Array<() => void> = [];

  constructor(script: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }) {
    this.child = spawn(process.execPath, [script, ...args], { env: options.env, cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop() ?? '';
      this.lines.push(...parts);
      this.#notify();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolveExit) => {
      this.child.on('exit', (code, signal) => {
        resolveExit({ code, signal });
        this.#notify();
      });
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first stdout line parsed as JSON that matches, waiting up to `timeoutMs`; fails if the process exits first. */
  async waitForLog(match: (entry: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (let seen = 0; ; ) {
      for (; seen < this.lines.length; seen++) {
        const entry = parseLog(this.lines[seen]!);
        if (entry && match(entry)) return entry;
      }
      if (!this.running) throw new Error(`process exited before the awaited log line\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching log line within ${timeoutMs} ms\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Every stdout JSON log line so far that matches. */
  logs(match: (entry: Record<string, unknown>) => boolean): Record<string, unknown>[] {
    return this.lines.flatMap((line) => {
      const entry = parseLog(line);
      return entry && match(entry) ? [entry] : [];
    });
  }

  /** Resolves with the exit, or undefined if it did not come within `timeoutMs`. */
  async exitWithin(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((wake) => (timer = setTimeout(() => wake(undefined), timeoutMs)));
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

function parseLog(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A worker process (BullMQ processors), by default on the test run's database and Redis, allowed to crawl local test sites. */
export async function startWorker(env = childEnv({ ...TEST_ENV, CRAWL_ALLOW_PRIVATE: '1', LOG_LEVEL: 'info' })): Promise<Running> {
  const worker = new Running(resolve(ROOT, 'dist/workers/index.js'), [], { env });
  await worker.waitForLog((entry) => entry.msg === 'worker ready', 20_000);
  return worker;
}

/** SIGTERM, then wait (bounded) for the exit. */
export async function stopProcess(process: Running | undefined): Promise<void> {
  process?.child.kill('SIGTERM');
  await process?.exitWithin(10_000);
}
