import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../../bench/support/processes';
import { defer } from '../../bench/support/cleanup';

export interface Exit {
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** We killed it (kill -9, stop); anything else is a crash. */
  expected: boolean;
  /** It had said it was ready: false is a start that failed (e.g. a restart while Redis is down). */
  wasReady: boolean;
  stderr: string;
}

export interface Notable {
  at: number;
  msg: string;
}

/** Log lines worth keeping with their time: what the cluster did about each fault. */
const NOTABLE = /"msg":"(joined the cluster|lost cluster membership[^"]*|fenced out[^"]*|stopped serving shards|acquired shards)"/;
const PROBLEM = /"level":(40|50|60)/;

/**
 * A child process under a supervisor, as systemd or Kubernetes would run it: started, killed or
 * frozen on purpose by the run, and restarted (with back-off) when it exits on its own, which is
 * recorded as a crash. Its log is read line by line for warnings, errors and cluster events.
 */
export class Supervised {
  readonly exits: Exit[] = [];
  readonly notable: Notable[] = [];
  /** Warnings and errors by message: how many, and when first and last. */
  readonly problems = new Map<string, { count: number; first: number; last: number }>();
  ready: Record<string, unknown> | undefined;
  private child: ChildProcess | undefined;
  private expecting = false;
  private retired = false;
  private crashes = 0;
  private stderr = '';

  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: Record<string, string>,
    private readonly readyMessage: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and resolves with its ready line; rejects if it exits first or takes over a minute. */
  start(): Promise<Record<string, unknown>> {
    this.expecting = false;
    this.ready = undefined;
    this.stderr = '';
    const child = spawn(process.execPath, [this.script], { env: childEnv(this.env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const undo = defer(`kill ${this.name}`, () => void child.kill('SIGKILL'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} was not ready within 60 s:\n${this.stderr.slice(-2000)}`)), 60_000);
      let partial = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          const entry = this.read(line);
          if (!this.ready && entry?.msg === this.readyMessage) {
            this.ready = entry;
            clearTimeout(timer);
            resolve(entry);
          }
        }
      });
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-4000);
        // Only with NODE_OPTIONS=--unhandled-rejections=warn: each one would have ended the process.
        const warned = chunk.match(/UnhandledPromiseRejectionWarning/g)?.length ?? 0;
        for (let i = 0; i < warned; i++) this.problem('unhandled promise rejection (warned, not fatal)', Date.now());
      });
      child.on('exit', (code, signal) => {
        undo();
        clearTimeout(timer);
        const expected = this.expecting;
        this.exits.push({ at: Date.now(), code, signal, expected, wasReady: !!this.ready, stderr: this.stderr.slice(-1500) });
        if (!this.ready) reject(new Error(`${this.name} exited before it was ready (${String(code ?? signal)}):\n${this.stderr.slice(-2000)}`));
        if (!expected && !this.retired) this.restartAfterCrash();
      });
    });
  }

  /** kill -9: no goodbye, no lease released. Resolves once the process has exited. */
  async crash(): Promise<void> {
    await this.signal('SIGKILL');
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGTERM (a graceful stop), SIGKILL if it lingers; no restart afterwards. */
  async stop(): Promise<void> {
    this.retired = true;
    this.resume();
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((done) => child.once('exit', done));
    this.expecting = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((done) => child.once('exit', done));
    this.expecting = true;
    child.kill(signal);
    await exited;
  }

  /** A crash-looping process is restarted 1, 2, 4 ... 10 s later, as a supervisor would. */
  private restartAfterCrash(): void {
    this.crashes++;
    const delay = Math.min(10_000, 1_000 * 2 ** (this.crashes - 1));
    setTimeout(() => {
      if (this.retired || this.running) return;
      this.start().catch(() => undefined); // a failed start exits, which schedules the next attempt
    }, delay).unref();
  }

  /** Parses only the lines worth it: a loaded node logs one line per request. */
  private read(line: string): Record<string, unknown> | undefined {
    const ready = line.includes(`"msg":"${this.readyMessage}"`);
    const notable = NOTABLE.exec(line);
    const problem = PROBLEM.test(line);
    if (!ready && !notable && !problem) return undefined;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    const at = typeof entry.time === 'number' ? entry.time : Date.now();
    if (notable) this.notable.push({ at, msg: notable[1]! });
    if (problem) {
      const err = entry.err as { message?: string } | undefined;
      const status = (entry.res as { statusCode?: number } | undefined)?.statusCode;
      this.problem(`${String(entry.msg)}${status ? ` (${status})` : ''}${err?.message ? `: ${err.message}` : ''}`.slice(0, 160), at);
    }
    return entry;
  }

  private problem(key: string, at: number): void {
    const seen = this.problems.get(key);
    if (seen) {
      seen.count++;
      seen.last = at;
    } else this.problems.set(key, { count: 1, first: at, last: at });
  }
}
