import type { Response } from 'express';
import type { OpenCount } from '../ops/metrics';

const KEEPALIVE_MS = 15_000;

/**
 * A Server-Sent Events answer: `event:` and `data:` (JSON) lines per event, an `id:` per event, and
 * a comment every 15 s so proxies and load balancers keep an idle stream open. `openStreams` counts
 * it (the process's metrics) from its headers until its connection closes, however it closes.
 */
export class SseStream {
  private nextId = 1;
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly res: Response,
    openStreams: OpenCount,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    // nginx buffers proxied responses unless told not to; a buffered stream is no stream.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    this.keepalive = setInterval(() => this.write(': keepalive\n\n'), KEEPALIVE_MS);
    res.once('close', () => clearInterval(this.keepalive));
    // A client gone before the first event has closed already: 'close' will not come again to lower the count.
    if (!res.closed) {
      openStreams.inc();
      res.once('close', () => openStreams.dec());
    }
  }

  /** Whether the client is still there to read. */
  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  send(event: string, data: unknown): void {
    this.write(`id: ${this.nextId++}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    clearInterval(this.keepalive);
    if (this.open) this.res.end();
  }

  private write(text: string): void {
    if (this.open) this.res.write(text);
  }
}
