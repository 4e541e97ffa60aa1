import type { WebNode } from './cluster';

const CHECK_EVERY_MS = 250;
const CHECK_TIMEOUT_MS = 500;

/**
 * What stands in front of the web nodes in production: round-robin over the nodes whose /readyz
 * answers 200 (checked every 250 ms, 500 ms timeout), failing open to every running node when none
 * is ready (Redis or Postgres down makes all of them unready at once). A refused connection marks a
 * node down until its next good check, as a proxy's passive health check does.
 */
export class Balancer {
  private readonly ready = new Set<WebNode>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly nodes: readonly WebNode[]) {}

  start(): void {
    const check = async () => {
      await Promise.all(this.nodes.map((node) => this.check(node)));
      this.timer = setTimeout(() => void check(), CHECK_EVERY_MS);
    };
    void check();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** A node to send the next request to, avoiding `except` when another will do. */
  pick(except?: WebNode): WebNode | undefined {
    const up = this.nodes.filter((n) => n.running && n.url);
    const ready = up.filter((n) => this.ready.has(n));
    const pool = ready.length ? ready : up;
    const choices = pool.filter((n) => n !== except);
    const from = choices.length ? choices : pool;
    if (!from.length) return undefined;
    this.next = (this.next + 1) % from.length;
    return from[this.next];
  }

  markDown(node: WebNode): void {
    this.ready.delete(node);
  }

  private async check(node: WebNode): Promise<void> {
    const url = node.url;
    if (!url || !node.running) return void this.ready.delete(node);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (response.ok) this.ready.add(node);
      else this.ready.delete(node);
    } catch {
      this.ready.delete(node);
    }
  }
}
