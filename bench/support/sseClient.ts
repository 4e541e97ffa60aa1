import { request, type Agent } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Target {
  host: string;
  port: number;
  agent: Agent;
}

/** Called for each server-sent event, with the time its bytes arrived (performance.now()). */
export type OnEvent = (event: string, data: string, at: number) => void;

export interface Outcome {
  status: number;
  /** performance.now() just before the request was written. */
  sentAt: number;
  endedAt: number;
  /** The answer ended normally (not a socket error or abort). */
  complete: boolean;
  /** The last event's name and data (`done`, `error` on the widget stream; `message` / `[DONE]` from a provider). */
  lastEvent: string;
  lastData: string;
  /** A non-200 answer's body, or the socket error. */
  detail?: string;
}

/**
 * Parses a text/event-stream answer as it arrives: `event:` and `data:` lines per event, comments
 * (`: keepalive`) skipped. One timestamp per network read, shared by the events it carried, which
 * is what a browser's EventSource would see too.
 */
class EventReader {
  private buffer = '';
  last = '';
  lastData = '';

  constructor(private readonly onEvent: OnEvent) {}

  feed(chunk: string, at: number): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data = line.slice(6);
      }
      if (!data) continue;
      this.last = event;
      this.lastData = data;
      this.onEvent(event, data, at);
    }
  }
}

/**
 * POSTs JSON over a keep-alive connection and reads the event stream that answers. Never rejects:
 * a failure is an outcome. `abort()` cuts the connection (a stream the bench gave up on).
 */
export function postSse(target: Target, path: string, body: unknown, headers: Record<string, string>, onEvent: OnEvent): { outcome: Promise<Outcome>; abort(): void } {
  let current: ReturnType<typeof request> | undefined;
  const outcome = new Promise<Outcome>((resolve) => {
    const payload = JSON.stringify(body);
    const send = (): void => {
      const reader = new EventReader(onEvent);
      let settled = false;
      const finish = (status: number, complete: boolean, detail?: string) => {
        if (settled) return;
        settled = true;
        resolve({ status, sentAt, endedAt: performance.now(), complete, lastEvent: reader.last, lastData: reader.lastData, ...(detail === undefined ? {} : { detail }) });
      };
      const all = { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), accept: 'text/event-stream' };
      const req = request({ host: target.host, port: target.port, path, method: 'POST', agent: target.agent, headers: all }, (res) => {
        res.setEncoding('utf8');
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          let text = '';
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => finish(status, true, text.slice(0, 300)));
          return;
        }
        res.on('data', (chunk: string) => reader.feed(chunk, performance.now()));
        res.on('end', () => finish(status, true));
        res.on('error', (error) => finish(status, false, error.message));
      });
      current = req;
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A reused socket the server closed for idling just as we picked it: nothing was processed, so
        // sending again is safe (Node's documentation advises exactly this).
        if (req.reusedSocket && error.code === 'ECONNRESET' && !settled) {
          settled = true;
          return send();
        }
        finish(0, false, error.message);
      });
      const sentAt = performance.now();
      req.end(payload);
    };
    send();
  });
  return { outcome, abort: () => current?.destroy(new Error('aborted by the bench')) };
}

/** `POST /widget/{key}/stream` as one visitor from its own IP (the route allows 20 a minute per IP, as for real browsers). */
export function postWidgetStream(target: Target, key: string, body: Record<string, unknown>, ip: string, onEvent: OnEvent): { outcome: Promise<Outcome>; abort(): void } {
  return postSse(target, `/widget/${key}/stream`, body, { 'x-forwarded-for': ip }, onEvent);
}

/** The same request straight to the provider, as Parley makes it: the baseline without Parley. */
export function postProvider(target: Target, content: string, onEvent: OnEvent): { outcome: Promise<Outcome>; abort(): void } {
  const body = { model: 'bench', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content }] };
  return postSse(target, '/v1/chat/completions', body, { authorization: 'Bearer sk-bench' }, onEvent);
}

let nextIp = 0;

/** A new client address per request: each stream is its own visitor, as in production. */
export function freshIp(): string {
  const n = ++nextIp;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
