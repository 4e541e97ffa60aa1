import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { defer } from './cleanup';
import { epochMs, type FromChild, type SocketSpec, type ToChild } from './fanoutProtocol';
import { childEnv } from './processes';

const CLIENT_MAIN = resolve(__dirname, 'fanoutClient.js');

type Reply<T extends FromChild['type']> = Extract<FromChild, { type: T }>;

/** One socket-holding child (bench/support/fanoutClient.ts), driven over IPC. */
export class SocketChild {
  private waiters: Array<(message: FromChild) => boolean> = [];
  private fatal: string | undefined;
  /** This child's clock minus ours, in ms (measured by `syncClock`). */
  offsetMs = 0;

  private constructor(
    readonly index: number,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (message: FromChild) => {
      if (message.type === 'fatal') this.fatal = message.message;
      this.waiters = this.waiters.filter((take) => !take(message));
    });
  }

  static start(index: number): SocketChild {
    const child = fork(CLIENT_MAIN, [], { env: childEnv({}), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    defer(`kill socket child ${index}`, () => void child.kill('SIGKILL'));
    return new SocketChild(index, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Sends `message` and resolves with the child's next reply of type `type`. */
  ask<T extends FromChild['type']>(message: ToChild, type: T, timeoutMs: number): Promise<Reply<T>> {
    return new Promise((resolveReply, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket child ${this.index}: no ${type} within ${timeoutMs} ms${this.fatal ? `: ${this.fatal}` : ''}`)), timeoutMs);
      this.waiters.push((reply) => {
        if (reply.type === 'fatal') {
          clearTimeout(timer);
          reject(new Error(`socket child ${this.index}: ${reply.message}`));
          return true;
        }
        if (reply.type !== type) return false;
        clearTimeout(timer);
        resolveReply(reply as Reply<T>);
        return true;
      });
      this.child.send(message);
    });
  }

  setup(nodes: string[], sockets: SocketSpec[], concurrency: number): Promise<Reply<'ready'>> {
    return this.ask({ type: 'setup', nodes, sockets, concurrency }, 'ready', 600_000);
  }

  /**
   * The child's clock against ours: the round trip with the smallest delay bounds the error by half
   * of it (IPC on one machine: well under a millisecond when quiet).
   */
  async syncClock(rounds = 25): Promise<{ offsetMs: number; uncertaintyMs: number }> {
    let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
    for (let i = 0; i < rounds; i++) {
      const reply = await this.ask({ type: 'clock', sentAt: epochMs() }, 'clock', 10_000);
      const back = epochMs();
      const rtt = back - reply.sentAt;
      if (rtt < best.rtt) best = { rtt, offset: reply.childAt - (reply.sentAt + back) / 2 };
    }
    this.offsetMs = best.offset;
    return { offsetMs: best.offset, uncertaintyMs: best.rtt / 2 };
  }

  collect(): Promise<Reply<'samples'>> {
    return this.ask({ type: 'collect' }, 'samples', 120_000);
  }

  close(): void {
    if (this.child.connected) this.child.send({ type: 'close' } satisfies ToChild);
  }
}
