import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { openai, type Answer } from '../../test/support/fakeLlmProtocols';

/**
 * A fake OpenAI-compatible provider for the streaming benchmarks: it streams tokens at a fixed pace
 * and writes its own timing into each token, so the client at the far end of Parley can subtract
 * the provider's time from what it observed without any side channel or shared clock.
 *
 * The pace comes from the visitor's message (the last user message of the prompt), e.g.
 * `tokens=1200 every=33.333 first=0`: that many tokens, one every `every` ms, the first `first` ms
 * after the request arrived. Token i reads `i@<ms since the request arrived, when it was written> `;
 * token 0 also carries the arrival time on the epoch clock (`~<ms>`), which lets the bench split
 * Parley's time into "before the provider call" and "relaying the first token", approximately
 * (two processes' clocks).
 */
export interface Pace {
  tokens: number;
  everyMs: number;
  firstMs: number;
}

export const DEFAULT_PACE: Pace = { tokens: 5, everyMs: 33.333, firstMs: 0 };

export function paceText(pace: Pace): string {
  return `tokens=${pace.tokens} every=${pace.everyMs} first=${pace.firstMs}`;
}

function paceOf(text: string): Pace {
  const number = (name: string, fallback: number) => {
    const value = Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(text)?.[1]);
    return Number.isFinite(value) ? value : fallback;
  };
  return { tokens: Math.max(1, Math.floor(number('tokens', DEFAULT_PACE.tokens))), everyMs: number('every', DEFAULT_PACE.everyMs), firstMs: number('first', DEFAULT_PACE.firstMs) };
}

/** Epoch milliseconds with sub-millisecond precision, comparable (roughly) between processes. */
export const epochMs = (at = performance.now()): number => performance.timeOrigin + at;

/** What a client reads back out of a delta's text: every token in it (one per delta, unless a relay merged some). */
export interface Token {
  index: number;
  /** Provider clock: ms from the request's arrival to the token's write. */
  offsetMs: number;
  /** Token 0 only: the request's arrival, epoch ms. */
  arrivedEpochMs?: number;
}

const TOKEN = /(\d+)@([\d.]+)(?:~([\d.]+))? /g;

export function tokensIn(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    tokens.push({ index: Number(match[1]), offsetMs: Number(match[2]), ...(match[3] ? { arrivedEpochMs: Number(match[3]) } : {}) });
  }
  return tokens;
}

/**
 * The protocol encoder's delta frame for one placeholder piece, split around it: a token frame is
 * then two concatenations, not an encoder call per token (the provider writes 60,000 a second).
 */
function frameTemplate(model: string, id: string): { opening: string; before: string; after: string; closing: string } {
  const placeholder = 'PLACEHOLDER_PIECE';
  const answer: Answer = { id, model, pieces: [placeholder], usage: { in: 100, out: 1 }, includeUsage: true, safetyBlock: false };
  const frames = openai.stream(answer);
  const [before, after] = frames.deltas[0]!.split(placeholder) as [string, string];
  return { opening: frames.opening.join(''), before, after, closing: frames.closing.join('') };
}

function lastUserMessage(body: unknown): string {
  const messages = (body as { messages?: Array<{ role?: string; content?: unknown }> } | undefined)?.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req.setEncoding('utf8')) body += chunk as string;
  return body;
}

let served = 0;

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrived = performance.now();
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
    return;
  }
  const body = JSON.parse(await readBody(req)) as { model?: string; stream?: boolean };
  if (body.stream !== true) {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"the bench provider only streams"}}');
    return;
  }
  const pace = paceOf(lastUserMessage(body));
  const frames = frameTemplate(body.model ?? 'bench', `bench-${++served}`);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  // Headers and the role chunk go out at once, as the real API sends them; tokens follow on the pace.
  res.write(frames.opening);
  let index = 0;
  let timer: NodeJS.Timeout | undefined;
  res.on('close', () => clearTimeout(timer));
  const next = () => {
    if (res.destroyed) return;
    const offset = performance.now() - arrived;
    const stamp = index === 0 ? `~${epochMs(arrived).toFixed(3)}` : '';
    res.write(`${frames.before}${index}@${offset.toFixed(3)}${stamp} ${frames.after}`);
    index++;
    if (index < pace.tokens) {
      // Due times are fixed from arrival, so a late timer does not push every later token back.
      timer = setTimeout(next, Math.max(0, pace.firstMs + index * pace.everyMs - (performance.now() - arrived)));
    } else {
      res.end(frames.closing);
    }
  };
  timer = setTimeout(next, Math.max(0, pace.firstMs - (performance.now() - arrived)));
}

export async function startTokenProvider(port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  // Parley's fetch keeps connections alive between calls; streams of a minute must not be cut either.
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
