import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError, type ProviderFailure } from './errors';
import { Exchange, type TextHandler } from './transport';
import type { ProviderEndpoint } from './types';
import { asString, dig, parseJson } from './wire';

/**
 * Waits between attempts; its length is the number of retries. Mutable so tests can shorten it;
 * production code never touches it.
 */
export const retryPolicy = { delaysMs: [250, 1000], maxRetryAfterMs: 10_000 };

/** Statuses a provider uses for "try again": overload, rate limits, gateway trouble, Anthropic's 529. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

/** Longest provider message kept in a ProviderError detail: enough to diagnose, not a log flood. */
const DETAIL_LIMIT = 300;

export interface ProviderCall {
  endpoint: ProviderEndpoint;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  /** Reads a protocol-specific failure out of an error answer (Gemini reports a bad key as a 400). */
  classifyError?: (status: number, body: unknown) => ProviderFailure | undefined;
}

/** Receives each server-sent event in order; 'stop' ends the read (a protocol's end marker). */
export type SseHandler = (event: EventSourceMessage) => 'stop' | void;

/** POSTs JSON and returns the parsed JSON answer. */
export function postJson(call: ProviderCall): Promise<unknown> {
  return send(call, async (read) => {
    let text = '';
    await read((chunk) => {
      text += chunk;
    });
    const body = parseJson(text);
    if (body === undefined) throw failure(call, 'bad_response', `unparseable body: ${text.trim() || '(empty)'}`);
    return body;
  });
}

/** POSTs JSON and feeds the server-sent events of the answer to `onEvent` as they arrive. */
export function postSse(call: ProviderCall, onEvent: SseHandler): Promise<void> {
  return send(call, async (read) => {
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    let seenEvent = false;
    let raw = '';
    const streamed = (chunk: string): 'stop' | void => {
      if (!seenEvent && raw.length < DETAIL_LIMIT) raw += chunk;
      parser.feed(chunk);
      // Handlers run outside the parser's callback so that a ProviderError they throw is ours to route.
      try {
        for (const event of pending) {
          // An abort from inside a delta handler must stop the deltas already parsed from this chunk too.
          call.signal?.throwIfAborted();
          seenEvent = true;
          if (onEvent(event) === 'stop') return 'stop';
        }
      } finally {
        pending.length = 0;
      }
    };
    await read(streamed, true);
    // A body without a single event is usually a proxy's HTML or JSON page: show it instead of "ended early".
    if (!seenEvent) throw failure(call, 'bad_response', `no server-sent events in the answer: ${raw.trim() || '(empty)'}`);
  });
}

/** Builds a ProviderError whose detail is bounded and never carries the API key. */
export function failure(call: ProviderCall, kind: ProviderFailure, detail: string): ProviderError {
  return new ProviderError(call.endpoint.slug, kind, redact(truncate(detail, DETAIL_LIMIT + 60), call.endpoint.apiKey));
}

type Attempt<T> =
  | { ok: true; value: T }
  | { ok: false; error: ProviderError; retryable: boolean; retryAfterMs?: number };

/** Reads the answer's body: `onText` gets its text chunk by chunk until the end or 'stop'; `paced` for a streamed answer. */
type Reader = (onText: TextHandler, paced?: boolean) => Promise<void>;
type Consume<T> = (read: Reader) => Promise<T>;

async function send<T>(call: ProviderCall, consume: Consume<T>): Promise<T> {
  call.signal?.throwIfAborted();
  if (!URL.canParse(call.url)) throw failure(call, 'unreachable', `invalid provider URL ${call.url}`);
  for (let retry = 0; ; retry += 1) {
    const attempt = await attemptOnce(call, consume);
    if (attempt.ok) return attempt.value;
    if (!attempt.retryable || retry >= retryPolicy.delaysMs.length) throw attempt.error;
    const backoff = retryPolicy.delaysMs[retry] ?? 0;
    await sleep(attempt.retryAfterMs === undefined ? backoff : Math.min(attempt.retryAfterMs, retryPolicy.maxRetryAfterMs), call.signal);
  }
}

/**
 * One request. Only failures before the answer's body is trusted are retryable (no connection, an
 * error status): once a 2xx body has started, deltas may already be with the caller.
 */
async function attemptOnce<T>(call: ProviderCall, consume: Consume<T>): Promise<Attempt<T>> {
  const { endpoint, signal } = call;
  signal?.throwIfAborted();
  const exchange = new Exchange(call.url, call.headers, JSON.stringify(call.body));
  const timer = new IdleTimer(endpoint.timeoutMs, () => exchange.close(true));
  const forwardAbort = (): void => exchange.close(true);
  signal?.addEventListener('abort', forwardAbort, { once: true });
  let phase: 'headers' | 'body' = 'headers';
  let read = false;
  timer.arm();
  try {
    let response: IncomingMessage;
    try {
      response = await exchange.response;
    } catch (error) {
      if (exchange.cut) throw error;
      return { ok: false, retryable: true, error: failure(call, 'unreachable', `connection failed: ${describe(error)}`) };
    }
    phase = 'body';
    timer.arm();
    const reader: Reader = (onText, paced) => exchange.read(response, onText, () => timer.arm(), paced);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) return await errorAnswer(call, status, response.headers['retry-after'], reader, exchange);
    const value = await consume(reader);
    read = true;
    return { ok: true, value };
  } catch (error) {
    // The caller going away wins over everything else: it is not a provider failure.
    if (signal?.aborted) throw signal.reason;
    if (timer.fired) {
      const what = phase === 'headers' ? 'no answer' : 'no data';
      return { ok: false, retryable: false, error: failure(call, 'timeout', `${what} within ${endpoint.timeoutMs} ms`) };
    }
    if (error instanceof ProviderError) return { ok: false, retryable: false, error };
    return { ok: false, retryable: false, error: failure(call, 'unreachable', `connection lost mid-answer: ${describe(error)}`) };
  } finally {
    timer.clear();
    signal?.removeEventListener('abort', forwardAbort);
    // Cuts the upstream connection when the body was not read to its end (an error event, a failure).
    exchange.close(!read);
  }
}

async function errorAnswer(call: ProviderCall, status: number, retryAfter: string | undefined, read: Reader, exchange: Exchange): Promise<Attempt<never>> {
  let text = '';
  try {
    await read((chunk) => {
      text += chunk;
      if (text.length > 64_000) return 'stop';
    });
  } catch (error) {
    // A cut-off error body still has its status; only a timeout or the caller's abort overrides it.
    if (exchange.cut) throw error;
  }
  const body = parseJson(text);
  const kind = call.classifyError?.(status, body) ?? failureForStatus(status);
  return {
    ok: false,
    retryable: RETRYABLE_STATUSES.has(status),
    retryAfterMs: retryAfterMs(retryAfter),
    error: failure(call, kind, `HTTP ${status}${errorMessage(body, text)}`),
  };
}

function failureForStatus(status: number): ProviderFailure {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'rejected';
}

/** The three protocols all put a message at `error.message` (Gemini's stream errors come in an array). */
function errorMessage(body: unknown, text: string): string {
  const first = Array.isArray(body) ? (body[0] as unknown) : body;
  const type = asString(dig(first, 'error', 'type')) ?? asString(dig(first, 'error', 'status'));
  const message = asString(dig(first, 'error', 'message')) ?? asString(dig(first, 'message')) ?? text.trim();
  return `${type ? ` ${type}` : ''}: ${truncate(message || '(empty body)', DETAIL_LIMIT)}`;
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

class IdleTimer {
  fired = false;
  private handle: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onFire: () => void,
  ) {}

  /** Starts the wait again; per chunk read, so the one timer is refreshed rather than replaced (no new timer per token). */
  arm(): void {
    if (this.fired) return;
    if (this.handle !== undefined) {
      this.handle.refresh();
      return;
    }
    this.handle = setTimeout(() => {
      this.fired = true;
      this.onFire();
    }, this.ms);
  }

  clear(): void {
    if (this.handle !== undefined) clearTimeout(this.handle);
    this.handle = undefined;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The socket error's code is the part worth logging (ECONNREFUSED, ...); some errors carry it in `cause`. */
function describe(error: unknown): string {
  const cause = error instanceof Error ? (error.cause ?? error) : error;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}

function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Providers sometimes echo the key they were given in their error text. */
function redact(text: string, apiKey: string): string {
  return apiKey.length >= 8 ? text.split(apiKey).join('[redacted]') : text;
}
