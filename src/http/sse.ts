import type { Response } from 'express';
import { BUSY_ABOVE, flushAtTick, forget } from '../net/streamWindow';
import type { OpenCount } from '../ops/metrics';

const KEEPALIVE_MS = 15_000;

/**
 * Deltas are coalesced only while this process streams more answers than this: one write (a system
 * call, the largest cost of relaying a token) then carries every delta a stream got in the window.
 * With few streams each delta is written at once, as it comes.
 */
export const COALESCE_ABOVE = BUSY_ABOVE;

let streaming = 0;

/** What JSON.stringify must escape in a string: `"`, `\\`, control characters, and any surrogate (a lone one is escaped; a pair is left to JSON.stringify too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(data)` for a delta's `{ delta: text }`, byte for byte, without walking the object:
 * the text goes between quotes as it is when it holds nothing JSON escapes (a token's usual case),
 * else through JSON.stringify of the string alone. Anything but a plain object with exactly that one
 * string field is stringified whole. (Once per token: the object walk cost ~2,700 instructions.)
 */
export function deltaJson(data: unknown): string {
  if (typeof data !== 'object' || data === null || Object.getPrototypeOf(data) !== Object.prototype) return JSON.stringify(data);
  const text = (data as { delta?: unknown }).delta;
  if (typeof text !== 'string') return JSON.stringify(data);
  let fields = 0;
  for (const key in data) {
    if (key !== 'delta') return JSON.stringify(data);
    fields++;
  }
  if (fields !== 1) return JSON.stringify(data); // a `delta` that is not enumerable is not stringified
  return NEEDS_ESCAPE.test(text) ? `{"delta":${JSON.stringify(text)}}` : `{"delta":"${text}"}`;
}

/**
 * A Server-Sent Events answer: `event:` and `data:` (JSON) lines per event, an `id:` per event, and
 * a comment every 15 s so proxies and load balancers keep an idle stream open. `openStreams` counts
 * it (the process's metrics) from its headers until its connection closes, however it closes.
 * Under load (more than COALESCE_ABOVE streams open) deltas after the first are written together
 * on the window's tick (src/net/streamWindow.ts, after the provider reads it resumed); every event
 * keeps its own `id:` and lines, and any other event (and the end)
 * writes what was waiting first, so the order never changes.
 */
export class SseStream {
  private nextId = 1;
  private readonly keepalive: NodeJS.Timeout;
  private pending = '';
  private sentDelta = false;
  private counted = true;

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
    streaming++;
    this.keepalive = setInterval(() => this.write(': keepalive\n\n'), KEEPALIVE_MS);
    res.once('close', () => {
      clearInterval(this.keepalive);
      this.uncount();
    });
    // A client gone before the first event has closed already: 'close' will not come again to lower the count.
    if (!res.closed) {
      openStreams.inc();
      res.once('close', () => openStreams.dec());
    } else {
      this.uncount();
    }
  }

  /** Whether the client is still there to read. */
  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  send(event: string, data: unknown): void {
    const json = event === 'delta' ? deltaJson(data) : JSON.stringify(data);
    const text = `id: ${this.nextId++}\nevent: ${event}\ndata: ${json}\n\n`;
    if (event === 'delta') {
      // The first delta is the time to first token: never held.
      if (this.sentDelta && streaming > COALESCE_ABOVE) {
        this.pending += text;
        flushAtTick(this);
        return;
      }
      this.sentDelta = true;
    }
    this.write(this.pending ? this.take() + text : text);
  }

  /** Writes the deltas waiting for the window, if any. */
  flush(): void {
    if (this.pending) this.write(this.take());
  }

  end(): void {
    clearInterval(this.keepalive);
    this.flush();
    forget(this);
    this.uncount();
    if (this.open) this.res.end();
  }

  private take(): string {
    const text = this.pending;
    this.pending = '';
    return text;
  }

  private uncount(): void {
    if (!this.counted) return;
    this.counted = false;
    streaming--;
  }

  /**
   * Once the headers are on the socket and nothing of the answer waits in the response's own buffer,
   * an event goes straight to the socket as one chunk framed here (`<size>CRLF<text>CRLF`, exactly
   * what `res.write` sends for a chunked answer): one `write` call and buffer instead of
   * `res.write`'s four socket writes (size line, CRLF, text, CRLF) corked into a `writev` on the next
   * tick. The bytes on the wire are the same; `res.end()` still writes the last chunk. Anything else
   * (the socket not yet this answer's, data still buffered in the response, an HTTP/1.0 client
   * without chunked encoding) goes through `res.write` as before.
   */
  private write(text: string): void {
    if (!this.open) return;
    const res = this.res;
    const socket = res.socket;
    if (socket && socket.writable && res.headersSent && res.chunkedEncoding && res.writableLength === socket.writableLength) {
      socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
      return;
    }
    res.write(text);
  }
}
