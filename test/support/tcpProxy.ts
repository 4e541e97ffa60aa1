import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback TCP proxy a test can cut and restore, to take a dependency away from one process only. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private open = true;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (!proxy?.open) return void client.destroy();
      const upstream = createConnection(target);
      for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
        proxy.sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => (proxy!.sockets.delete(a), b.destroy()));
        a.pipe(b);
      }
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** Drops every connection and refuses new ones until restore(). */
  cut(): void {
    this.open = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
