import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROVIDERS, PROVIDER_SLUGS, type ProviderSlug } from '../../config/providers';
import { anthropic, gemini, openai, type Answer, type Protocol, type ProtocolName } from './fakeLlmProtocols';

/**
 * How the fake answers the calls that follow. Reply, usage and pace hold until reset(); the
 * misbehaviours (fail, reset, stall, streamError) hit the next `fail.times ?? times` calls, then
 * normal answers resume (default: every call).
 */
export interface FakeLlmScript {
  reply?: string;
  /** Token counts to report; `null` reports none (a proxy that strips usage). */
  usage?: { in: number; out: number } | null;
  /**
   * Answer with this status and the protocol's error body (and a Retry-After header when given).
   * `reason` is Gemini's ErrorInfo reason (API_KEY_INVALID comes with a 400).
   */
  fail?: { status: number; message?: string; reason?: string; retryAfter?: number; times?: number };
  /** Destroy the socket before writing anything, or after the first delta. */
  reset?: 'before-headers' | 'mid-stream';
  /** Keep the socket open without writing, before anything or after the first delta. */
  stall?: 'before-headers' | 'mid-stream';
  /** After the first delta, report this error inside the stream (Anthropic `event: error`, a `data: {"error"...}` elsewhere) and end. */
  streamError?: { type: string; message?: string };
  /** Gemini only: answer with a candidate blocked for SAFETY, without content. */
  safetyBlock?: boolean;
  /** Pause between two deltas of a stream. */
  delayMs?: number;
  /** After the first delta of a stream, wait for this before the rest: a test acts while the answer is under way. */
  holdAfterFirst?: Promise<unknown>;
  /**
   * The vector `/v1/embeddings` answers for one input text. Default: wordVector, a deterministic
   * stand-in that proves the wire protocol, storage and fusion, not a model of meaning.
   */
  embed?: (text: string) => number[];
  times?: number;
}

export interface RecordedRequest {
  protocol: ProtocolName;
  /** Path and query string as requested. */
  path: string;
  headers: IncomingHttpHeaders;
  /**
   * The JSON-parsed request body (the raw text when it was not JSON). `any` on purpose: tests assert on
   * arbitrary wire fields of three protocols, and the value is data, never code.
   */
  body: any;
  stream: boolean;
  /** True when the client closed the connection before the fake finished its answer. */
  closedEarly: boolean;
}

export interface FakeLlm {
  url: string;
  requests: RecordedRequest[];
  script(script: FakeLlmScript): void;
  /** Forgets the script and the recorded requests. */
  reset(): void;
  /** `PROVIDER_<SLUG>_BASE_URL` for the slugs (default: all eight), each as its official SDK's baseURL. */
  envFor(slugs?: readonly ProviderSlug[]): Record<string, string>;
  close(): Promise<void>;
}

const WORDS_PER_DELTA = 3;

export async function startFakeLlm(): Promise<FakeLlm> {
  let current: FakeLlmScript = {};
  let misbehaviourLeft = 0;
  let answered = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const route = routeOf(req);
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = parse(raw);
    const stream = route.protocol.name === 'gemini' ? route.streaming : (body as { stream?: unknown } | undefined)?.stream === true;
    const record: RecordedRequest = { protocol: route.protocol.name, path: req.url ?? '', headers: req.headers, body, stream, closedEarly: false };
    requests.push(record);

    const script = current;
    const misbehave = misbehaviourLeft > 0;
    if (misbehave) misbehaviourLeft -= 1;
    let serverClosed = false;
    const destroy = (): void => {
      serverClosed = true;
      res.destroy();
    };
    res.on('error', () => undefined);
    res.on('close', () => {
      if (!res.writableFinished && !serverClosed) record.closedEarly = true;
    });

    if (misbehave && script.reset === 'before-headers') return destroy();
    if (misbehave && script.stall === 'before-headers') return;
    if (misbehave && script.fail) {
      const { status, message = `Scripted failure ${status}`, reason, retryAfter } = script.fail;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      res.writeHead(status, headers).end(JSON.stringify(route.protocol.errorBody(status, message, reason)));
      return;
    }

    if (route.embeddings) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(embeddingsAnswer(body, script.embed ?? wordVector)));
      return;
    }

    answered += 1;
    const answer = answerFor(route.protocol, body, route.model, script, answered);
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(route.protocol.whole(answer)));
      return;
    }

    const frames = route.protocol.stream(answer);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const open = (): boolean => !res.destroyed && !serverClosed;
    for (const frame of frames.opening) res.write(frame);
    for (const [index, frame] of frames.deltas.entries()) {
      if (index > 0 && script.delayMs) await sleep(script.delayMs);
      if (!open()) return;
      await write(res, frame);
      if (index === 0 && script.holdAfterFirst) await script.holdAfterFirst;
      if (index > 0 || !misbehave) continue;
      if (script.reset === 'mid-stream') return destroy();
      if (script.stall === 'mid-stream') return;
      if (script.streamError) {
        res.end(route.protocol.streamError(script.streamError.type, script.streamError.message ?? 'Scripted stream error'));
        return;
      }
    }
    if (open()) res.end(frames.closing.join(''));
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    script(script) {
      current = script;
      misbehaviourLeft = script.fail?.times ?? script.times ?? Number.POSITIVE_INFINITY;
    },
    reset() {
      current = {};
      misbehaviourLeft = 0;
      requests.length = 0;
    },
    envFor(slugs = PROVIDER_SLUGS) {
      return Object.fromEntries(
        slugs.map((slug) => [`PROVIDER_${slug.toUpperCase()}_BASE_URL`, PROVIDERS[slug].protocol === 'openai' ? `${url}/v1` : url]),
      );
    },
    async close() {
      // Stalled answers never end by themselves; destroying their sockets lets close() return.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Route {
  protocol: Protocol;
  streaming: boolean;
  model?: string;
  /** OpenAI's `POST /v1/embeddings` rather than a chat call. */
  embeddings?: boolean;
}

function routeOf(req: IncomingMessage): Route | undefined {
  if (req.method !== 'POST') return undefined;
  const { pathname, searchParams } = new URL(req.url ?? '/', 'http://fake');
  if (pathname === '/v1/chat/completions') return { protocol: openai, streaming: false };
  if (pathname === '/v1/embeddings') return { protocol: openai, streaming: false, embeddings: true };
  if (pathname === '/v1/messages') return { protocol: anthropic, streaming: false };
  const match = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(pathname);
  if (!match) return undefined;
  const streaming = match[2] === 'streamGenerateContent';
  // Without alt=sse the real API streams a JSON array, which the fake does not speak.
  if (streaming && searchParams.get('alt') !== 'sse') return undefined;
  return { protocol: gemini, streaming, model: decodeURIComponent(match[1] ?? '') };
}

/** The scripted reply, or an echo of the last user message; usage scripted or derived from the texts. */
function answerFor(protocol: Protocol, body: unknown, pathModel: string | undefined, script: FakeLlmScript, serial: number): Answer {
  const prompt = protocol.prompt(body, pathModel);
  const lastUser = [...prompt.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const reply = script.safetyBlock ? '' : (script.reply ?? `Fake reply from ${protocol.name} to: ${lastUser.slice(0, 60)}`);
  const promptChars = prompt.system.length + prompt.messages.reduce((sum, m) => sum + m.content.length, 0);
  return {
    id: `fake-${protocol.name}-${serial}`,
    model: prompt.model,
    pieces: piecesOf(reply),
    usage: script.usage === null ? null : (script.usage ?? { in: Math.ceil(promptChars / 4), out: reply.split(/\s+/).filter(Boolean).length }),
    includeUsage: (body as { stream_options?: { include_usage?: unknown } } | undefined)?.stream_options?.include_usage === true,
    safetyBlock: script.safetyBlock === true,
  };
}

/** OpenAI's embeddings answer: one vector per input (a string or a list of them), in order, with usage. */
function embeddingsAnswer(body: unknown, embed: (text: string) => number[]): unknown {
  const { input, model } = (body ?? {}) as { input?: unknown; model?: unknown };
  const texts = (Array.isArray(input) ? input : [input]).map(String);
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    object: 'list',
    data: texts.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
    model: typeof model === 'string' ? model : 'unknown',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

const WORD_VECTOR_DIMENSIONS = 64;

/** A hashed bag of lower-cased words: texts sharing words point alike. Deterministic; no meaning beyond spelling. */
export function wordVector(text: string): number[] {
  const vector = new Array<number>(WORD_VECTOR_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ char.codePointAt(0)!, 16777619);
    vector[(hash >>> 0) % WORD_VECTOR_DIMENSIONS]! += 1;
  }
  return vector;
}

/** A few words per delta, whitespace kept, so the deltas concatenate back to the exact reply. */
function piecesOf(reply: string): string[] {
  const words = reply.split(/(?<=\s)(?=\S)/).filter(Boolean);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_DELTA) pieces.push(words.slice(i, i + WORDS_PER_DELTA).join(''));
  return pieces;
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Resolves once the frame is handed to the socket, so a following destroy() cannot swallow it. */
function write(res: ServerResponse, frame: string): Promise<void> {
  return new Promise((resolve) => res.write(frame, () => resolve()));
}
