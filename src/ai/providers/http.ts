import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError, type ProviderFailure } from './errors';
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
  return send(call, async (chunks) => {
    let text = '';
    for await (const chunk of chunks) text += chunk;
    const body = parseJson(text);
    if (body === undefined) throw failure(call, 'bad_response', `unparseable body: ${text.trim() || '(empty)'}`);
    return body;
  });
}

/** POSTs JSON and feeds the server-sent events of the answer to `onEvent` as they arrive. */
export function postSse(call: ProviderCall, onEvent: SseHandler): Promise<void> {
  return send(call, async (chunks) => {
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    let seenEvent = false;
    let raw = '';
    for await (const chunk of chunks) {
      if (!seenEvent && raw.length < DETAIL_LIMIT) raw += chunk;
      parser.feed(chunk);
      // Handlers run outside the parser's callback so that a ProviderError they throw is ours to route.
      for (const event of pending.splice(0)) {
        // An abort from inside a delta handler must stop the deltas already parsed from this chunk too.
        call.signal?.throwIfAborted();
        seenEvent = true;
        if (onEvent(event) === 'stop') return;
      }
    }
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

type Consume<T> = (chunks: AsyncIterable<string>) => Promise<T>;

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
  const controller = new AbortController();
  const timer = new IdleTimer(endpoint.timeoutMs, () => controller.abort(new Error('provider timeout')));
  const forwardAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forwardAbort, { once: true });
  let phase: 'headers' | 'body' = 'headers';
  timer.arm();
  try {
    let response: Response;
    try {
      response = await fetch(call.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...call.headers },
        body: JSON.stringify(call.body),
        signal: controller.signal,
      });
    } catch (error) {
      if (controller.signal.aborted) throw error;
      return { ok: false, retryable: true, error: failure(call, 'unreachable', `connection failed: ${describe(error)}`) };
    }
    phase = 'body';
    timer.arm();
    const chunks = decodedChunks(response, timer);
    if (!response.ok) return await errorAnswer(call, response, chunks, controller.signal);
    return { ok: true, value: await consume(chunks) };
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
    // Closes the upstream connection when the body was not read to its end (end marker, error event).
    controller.abort();
  }
}

async function errorAnswer(
  call: ProviderCall,
  response: Response,
  chunks: AsyncIterable<string>,
  aborted: AbortSignal,
): Promise<Attempt<never>> {
  const { status } = response;
  let text = '';
  try {
    for await (const chunk of chunks) {
      text += chunk;
      if (text.length > 64_000) break;
    }
  } catch (error) {
    // A cut-off error body still has its status; only a timeout or the caller's abort overrides it.
    if (aborted.aborted) throw error;
  }
  const body = parseJson(text);
  const kind = call.classifyError?.(status, body) ?? failureForStatus(status);
  return {
    ok: false,
    retryable: RETRYABLE_STATUSES.has(status),
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
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
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The body as text, re-arming the idle timer on every chunk so a slow but live stream never times out. */
async function* decodedChunks(response: Response, timer: IdleTimer): AsyncGenerator<string> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    timer.arm();
    const text = decoder.decode(value, { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

class IdleTimer {
  fired = false;
  private handle: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onFire: () => void,
  ) {}

  arm(): void {
    this.clear();
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

/** fetch() hides the socket error in `cause`; that is the part worth logging (ECONNREFUSED, ...). */
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
