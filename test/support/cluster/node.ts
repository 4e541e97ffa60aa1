import { randomBytes } from 'node:crypto';
import { Running } from '../processes';

export interface NodeState {
  member: string;
  owned: number[];
  active: number;
}

export type AskResult = { value: unknown } | { error: { status: number; code: string; message: string } };

/** A real web node process (nodeMain.ts) under a test's control: ask through it, read its state, kill it. */
export class ClusterNode {
  private constructor(
    readonly name: string,
    readonly process: Running,
    readonly url: string,
    private readonly control: string,
  ) {}

  static async start(script: string, name: string, env: NodeJS.ProcessEnv): Promise<ClusterNode> {
    const process = new Running(script, [], { env });
    const web = await process.waitForLog((entry) => entry.msg === 'listening', 30_000);
    const control = await process.waitForLog((entry) => entry.msg === 'control listening', 30_000);
    return new ClusterNode(name, process, `http://127.0.0.1:${String(web.port)}`, `http://127.0.0.1:${String(control.port)}`);
  }

  get alive(): boolean {
    return this.process.running;
  }

  /** An ask routed by this node's own router, as an HTTP route on it would. */
  async ask(kind: string, id: string, message: Record<string, unknown>, options: Record<string, unknown> = {}): Promise<AskResult> {
    return this.post('/ask', { kind, id, message, options }) as Promise<AskResult>;
  }

  async state(): Promise<NodeState> {
    const response = await fetch(`${this.control}/state`);
    return (await response.json()) as NodeState;
  }

  async post(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(`${this.control}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return response.status === 204 ? undefined : response.json();
  }

  /**
   * Blocks the node's event loop for `ms`; `blocked` resolves once it is blocked, `done` when it answers
   * again, with the outcome of `then`, an ask its router starts before it sees anything that came meanwhile.
   */
  block(ms: number, then?: { kind: string; id: string; message: Record<string, unknown> }): { blocked: Promise<unknown>; done: Promise<AskResult | undefined> } {
    const token = randomBytes(4).toString('hex');
    const done = this.post('/block', { ms, token, then }) as Promise<AskResult | undefined>;
    return { blocked: this.process.waitForLog((e) => e.token === token, 10_000), done };
  }

  /** SIGKILL / SIGTERM wait for the exit; SIGSTOP / SIGCONT return at once. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    if (!this.alive) return;
    this.process.child.kill(signal);
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      const exit = await this.process.exitWithin(30_000);
      if (!exit) throw new Error(`${this.name} did not exit after ${signal}; its last log lines:\n${this.process.lines.slice(-25).join('\n')}\n${this.process.stderr}`);
    }
  }

  /** The node's JSON log lines that match. */
  logs(match: (entry: Record<string, unknown>) => boolean): Record<string, unknown>[] {
    return this.process.logs(match);
  }
}
