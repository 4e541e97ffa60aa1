import { Agent } from 'node:http';
import { SHARD_COUNT, shardOf } from '../../src/actors/cluster/shards';
import { Running } from '../../test/support/processes';
import { defer } from './cleanup';
import { childEnv, forgetLogs, NODE_MAIN, type NodeState } from './processes';

/**
 * A real web node (dist/test/support/cluster/nodeMain.js: startWeb, as `npm start` runs it, plus a
 * loopback control port) whose HTTP port is known, so the bench can talk to it as browsers do.
 * Registered for cleanup before it has said anything, so a node that fails to start is still killed.
 */
export class WebNode {
  /** Warnings and errors the node logged (pino level >= 40): how many, and the first few distinct messages. */
  readonly problems = { count: 0, first: [] as string[] };

  private constructor(
    readonly name: string,
    readonly running: Running,
    readonly port: number,
    private readonly control: string,
    private readonly undo: () => void,
  ) {}

  /** `nodeFlags` go before the script (`--cpu-prof` is refused in NODE_OPTIONS). */
  static async start(name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<WebNode> {
    const [first, ...rest] = [...nodeFlags, NODE_MAIN];
    const running = new Running(first!, rest, { env: childEnv({ ...env, NODE_ID: name, PORT: '0', LOG_LEVEL: 'info' }) });
    const undo = defer(`kill node ${name}`, () => running.child.kill('SIGKILL'));
    const listening = await running.waitForLog((entry) => entry.msg === 'listening', 60_000);
    const control = await running.waitForLog((entry) => entry.msg === 'control listening', 10_000);
    forgetLogs(running);
    const node = new WebNode(name, running, Number(listening.port), `http://127.0.0.1:${String(control.port)}`, undo);
    node.watchProblems();
    return node;
  }

  /** Only lines that say level 40+ are parsed: a loaded node logs a line per request. */
  private watchProblems(): void {
    let partial = '';
    this.running.child.stdout!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!/"level":(4|5|6)0/.test(line)) continue;
        this.problems.count++;
        try {
          const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
          const what = `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 200);
          if (this.problems.first.length < 5 && !this.problems.first.includes(what)) this.problems.first.push(what);
        } catch {
          // a line cut by a crash: counted, not quoted
        }
      }
    });
  }

  get pid(): number {
    return this.running.child.pid!;
  }

  async state(): Promise<NodeState> {
    const response = await fetch(`${this.control}/state`, { signal: AbortSignal.timeout(2_000) });
    return (await response.json()) as NodeState;
  }

  /** SIGTERM (a graceful stop, which also writes a --cpu-prof profile), SIGKILL if it lingers. */
  async stop(): Promise<void> {
    this.running.child.kill('SIGTERM');
    if (!(await this.running.exitWithin(20_000))) this.running.child.kill('SIGKILL');
    this.undo();
  }
}

/** Resolves when the nodes together serve every shard exactly once and each serves some. */
export async function settledNodes(nodes: readonly WebNode[], timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const owned = await Promise.all(nodes.map((n) => n.state().then((s) => s.owned, () => [] as number[])));
    const all = owned.flat();
    if (all.length === SHARD_COUNT && new Set(all).size === SHARD_COUNT && owned.every((o) => o.length > 0)) return;
    if (Date.now() > until) throw new Error(`nodes did not settle in ${timeoutMs} ms: ${owned.map((o) => o.length).join('+')} shards owned`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Which node serves a conversation's actor, from the nodes' own shard lists (taken once, when settled). */
export async function ownerMap(nodes: readonly WebNode[]): Promise<(conversationId: string) => WebNode | undefined> {
  const owned = await Promise.all(nodes.map(async (node) => ({ node, shards: new Set((await node.state()).owned) })));
  return (conversationId) => owned.find((o) => o.shards.has(shardOf('conversation', conversationId)))?.node;
}

/** Keep-alive sockets without a cap: every concurrent stream is its own connection, as browsers' are. */
export const streamAgent = (): Agent => new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, scheduling: 'lifo' });
