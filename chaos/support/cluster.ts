import { resolve } from 'node:path';
import { SHARD_COUNT } from '../../src/actors/cluster/shards';
import { ROOT } from '../../bench/support/processes';
import { sleep } from './ports';
import { Supervised } from './process';

const NODE_MAIN = resolve(ROOT, 'dist/chaos/support/nodeMain.js');
const WORKER = resolve(ROOT, 'dist/workers/index.js');

export interface ActiveActor {
  id: string;
  shard: number;
  epoch: number;
}

export interface NodeState {
  member: string;
  owned: number[];
  active: ActiveActor[];
  /** Actors of every kind the node's tracker holds, and the host's own count. */
  tracked: number;
  hostActivations: number;
}

/** A supervised web node (chaos/support/nodeMain): its HTTP address and its control port's view of itself. */
export class WebNode extends Supervised {
  constructor(name: string, env: Record<string, string>) {
    super(name, NODE_MAIN, { ...env, NODE_ID: name, PORT: '0', LOG_LEVEL: 'info' }, 'chaos node ready');
  }

  /** Where a load balancer sends requests to this node (changes at every restart: the port is the OS's pick). */
  get url(): string | undefined {
    return this.ready ? `http://127.0.0.1:${String(this.ready.port)}` : undefined;
  }

  async state(timeoutMs = 1_500): Promise<NodeState> {
    if (!this.ready) throw new Error(`${this.name} is not up`);
    const response = await fetch(`http://127.0.0.1:${String(this.ready.control)}/state`, { signal: AbortSignal.timeout(timeoutMs) });
    return (await response.json()) as NodeState;
  }
}

/** The deployment under test: web nodes and one worker, all supervised. */
export class Cluster {
  readonly nodes: WebNode[];
  readonly worker: Supervised;

  constructor(env: Record<string, string>, webNodes: number) {
    this.nodes = Array.from({ length: webNodes }, (_, i) => new WebNode(`n${i + 1}`, env));
    this.worker = new Supervised('worker', WORKER, { ...env, NODE_ID: 'worker', LOG_LEVEL: 'info' }, 'worker ready');
  }

  get processes(): Supervised[] {
    return [...this.nodes, this.worker];
  }

  async start(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }

  /** Every running node's state; a node that does not answer (frozen, starting) is left out. */
  async states(): Promise<Array<{ node: WebNode; state: NodeState }>> {
    const all = await Promise.all(this.nodes.filter((n) => n.running && n.ready).map((node) => node.state().then((state) => ({ node, state }), () => undefined)));
    return all.filter((s) => s !== undefined);
  }

  /** True when the running nodes together serve every shard exactly once and each serves some. */
  async isSettled(): Promise<boolean> {
    const running = this.nodes.filter((n) => n.running);
    const states = await this.states();
    if (states.length !== running.length) return false;
    const owned = states.map((s) => s.state.owned);
    const all = owned.flat();
    return all.length === SHARD_COUNT && new Set(all).size === SHARD_COUNT && owned.every((o) => o.length > 0);
  }

  async settled(timeoutMs: number): Promise<number> {
    const started = Date.now();
    while (!(await this.isSettled())) {
      if (Date.now() - started > timeoutMs) throw new Error(`the cluster did not settle within ${timeoutMs} ms`);
      await sleep(100);
    }
    return Date.now() - started;
  }
}
