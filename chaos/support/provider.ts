import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { openai, type Answer } from '../../test/support/fakeLlmProtocols';
import { sleep } from './ports';

/** Every visitor message of the run carries its client id in brackets; the provider reads it back from the prompt. */
export const TAG = /\[([0-9a-f-]{36})\]/;

export interface ProviderCall {
  serial: number;
  /** The client id of the visitor message being answered (from the prompt's last user message). */
  tag: string | undefined;
  startedAt: number;
  endedAt: number | undefined;
  /** The whole answer was written and the response ended. */
  completed: boolean;
  /** The caller closed the connection before the answer was complete (its turn was cut off). */
  closedEarly: boolean;
}

export interface FakeProvider {
  url: string;
  calls: ProviderCall[];
  env: Record<string, string>;
  close(): Promise<void>;
}

/** `Answer <serial> to [<client id>]: ...`: the stored answer names the call that wrote it. */
export function answerSerial(content: string): number | undefined {
  const match = /^Answer (\d+) to /.exec(content);
  return match ? Number(match[1]) : undefined;
}

/**
 * An OpenAI-compatible streaming provider (the wire format of test/support/fakeLlmProtocols) that
 * numbers its answers and remembers every call: which visitor message it answered, and whether it
 * ran to the end or was cut off by its caller. That is what tells "the provider was asked again
 * after a cut-off" from "an answer was generated twice".
 */
export async function startFakeProvider(deltaDelayMs: number): Promise<FakeProvider> {
  const calls: ProviderCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${String(req.method)} ${String(req.url)}` } }));
      return;
    }
    const body: unknown = JSON.parse(raw);
    const prompt = openai.prompt(body, undefined);
    const lastUser = [...prompt.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const call: ProviderCall = { serial: calls.length + 1, tag: TAG.exec(lastUser)?.[1], startedAt: Date.now(), endedAt: undefined, completed: false, closedEarly: false };
    calls.push(call);
    res.on('error', () => undefined);
    res.on('close', () => {
      call.endedAt ??= Date.now();
      if (!res.writableFinished) call.closedEarly = true;
    });
    const text = `Answer ${call.serial} to [${call.tag ?? 'untagged'}]: every parcel ships insured and tracked, and returns are free for thirty days from delivery.`;
    const answer: Answer = {
      id: `chaos-${call.serial}`,
      model: prompt.model,
      pieces: piecesOf(text),
      usage: { in: Math.ceil(raw.length / 4), out: text.split(' ').length },
      includeUsage: (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true,
      safetyBlock: false,
    };
    if ((body as { stream?: unknown }).stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openai.whole(answer)), () => done(call));
      return;
    }
    const frames = openai.stream(answer);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const frame of frames.opening) res.write(frame);
    for (const [index, frame] of frames.deltas.entries()) {
      if (index > 0) await sleep(deltaDelayMs);
      if (res.destroyed) return;
      res.write(frame);
    }
    if (!res.destroyed) res.end(frames.closing.join(''), () => done(call));
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    // A platform key for every workspace: the chatbot's default provider (openai) answers from here.
    env: { PROVIDER_OPENAI_BASE_URL: `${url}/v1`, PROVIDER_OPENAI_API_KEY: 'sk-chaos-platform-key', PROVIDER_TIMEOUT_MS: '20000' },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function done(call: ProviderCall): void {
  call.completed = true;
  call.endedAt = Date.now();
}

/** Three words per delta, spaces kept, so the deltas concatenate back to the exact text. */
function piecesOf(text: string): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += 3) pieces.push(words.slice(i, i + 3).join(''));
  return pieces;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
