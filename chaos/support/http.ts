import { Agent, request } from 'node:http';

/** Keep-alive sockets without a cap, as many browsers behind one load balancer. */
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface HttpOutcome {
  /** 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  /** The `Retry-After` header of the answer, when it had one. */
  retryAfter?: string;
  /** The JSON body of a non-stream answer. */
  json?: Record<string, unknown>;
  /** Events of a text/event-stream answer, in order. */
  events: SseEvent[];
  /** The answer ended normally (not cut by a reset or a timeout). */
  complete: boolean;
  /** Why it did not complete: the socket error's code, or `timeout`. */
  failure?: string;
}

/**
 * POSTs JSON and reads the whole answer: a JSON body, or an event stream parsed as it arrives.
 * Never rejects. `idleMs`: no byte for this long ends the attempt (the widget's rule, with its own value).
 */
export function post(baseUrl: string, path: string, body: unknown, headers: Record<string, string>, idleMs: number, onEvent?: (event: SseEvent) => void): Promise<HttpOutcome> {
  const payload = JSON.stringify(body);
  const url = new URL(path, baseUrl);
  return new Promise((resolve) => {
    const send = (): void => {
      const events: SseEvent[] = [];
      let settled = false;
      let responded = false;
      const finish = (outcome: Omit<HttpOutcome, 'events'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...outcome, events });
      };
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), accept: 'text/event-stream, application/json' },
        },
        (res) => {
          responded = true;
          res.setEncoding('utf8');
          const status = res.statusCode ?? 0;
          const header = res.headers['retry-after'];
          const retryAfter = typeof header === 'string' ? { retryAfter: header } : {};
          const stream = /text\/event-stream/.test(String(res.headers['content-type']));
          let text = '';
          res.on('data', (chunk: string) => {
            text += chunk;
            if (!stream) return;
            for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
              const event = parseEvent(text.slice(0, end));
              text = text.slice(end + 2);
              if (!event) continue;
              events.push(event);
              onEvent?.(event);
            }
          });
          res.on('end', () => finish({ status, ...retryAfter, complete: true, ...(stream ? {} : { json: parseJson(text) }) }));
          res.on('error', (error: NodeJS.ErrnoException) => finish({ status, ...retryAfter, complete: false, failure: error.code ?? error.message }));
          res.on('aborted', () => finish({ status, ...retryAfter, complete: false, failure: 'aborted' }));
        },
      );
      req.setTimeout(idleMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A reused keep-alive socket the server had closed (a restarted node): nothing was processed,
        // so sending again is safe, as Node's documentation advises.
        if (req.reusedSocket && error.code === 'ECONNRESET' && !settled && !responded) {
          settled = true;
          return send();
        }
        finish({ status: 0, complete: false, failure: error.code ?? error.message });
      });
      req.end(payload);
    };
    send();
  });
}

function parseEvent(block: string): SseEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return undefined;
  const parsed = parseJson(data.join('\n'));
  return parsed ? { event, data: parsed } : undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
