import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { defer } from '../../bench/support/cleanup';
import { freePort, sleep } from './ports';

/**
 * A redis-server of the chaos run's own, on a free port, so killing and restarting it hurts no one
 * else. No persistence: a restart comes back empty, as a replaced Redis without a snapshot does.
 */
export class PrivateRedis {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(dir: string): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), dir);
    defer('stop the private redis-server', () => redis.kill('SIGKILL'));
    await redis.startAgain();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts redis-server on the same port (after a kill), resolving once it answers PING. */
  async startAgain(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--protected-mode', 'no'];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.process = child;
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const until = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at start (${String(child.exitCode)}): ${stderr}`);
      if (await this.answers()) return;
      if (Date.now() > until) throw new Error('redis-server did not answer PING within 10 s');
      await sleep(20);
    }
  }

  /** SIGKILL (a crash: nothing flushed, clients see the connection drop) or SIGTERM; resolves once it has exited. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async version(): Promise<string> {
    const client = new Redis(this.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    try {
      await client.connect();
      return /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? 'unknown';
    } finally {
      client.disconnect();
    }
  }

  private async answers(): Promise<boolean> {
    const client = new Redis(this.url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }
}
