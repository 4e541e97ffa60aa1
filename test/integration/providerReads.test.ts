import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chat, ProviderError, type ChatRequest, type ProviderEndpoint } from '../../src/ai/providers';

const REQUEST: ChatRequest = { model: 'm', system: '', messages: [{ role: 'user', content: 'hi' }], maxTokens: 64 };

/**
 * A provider that writes the given pieces of bytes one network write at a time, with a pause
 * between them, so each reaches the client in its own read: events, lines and characters cut
 * wherever the pieces say.
 */
async function provider(pieces: Buffer[]): Promise<{ server: Server; endpoint: ProviderEndpoint }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of pieces) {
        res.write(piece);
        await sleep(5);
      }
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: { slug: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test-reads', timeoutMs: 2_000 } };
}

/** Cuts the bytes of `text` at the given byte offsets. */
function cut(text: string, at: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  return [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length));
}

describe('AI providers: a stream read as raw bytes', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('gives every delta whole when events, lines, CRLFs and multi-byte characters are split between reads', async () => {
    const deltas = ['Gr', 'üß ', '€ 5 ', '😀', ' "quoted" \\ back\nslash', ' 日本'];
    const events = deltas.map((d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: d }, finish_reason: null }] })}\r\n\r\n`).join('');
    const text = `: keepalive\r\n\r\n${events}data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":6}}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const bytes = Buffer.from(text);
    // A cut inside every multi-byte character, and between every CR and its LF.
    const cuts: number[] = [];
    for (let i = 1; i < bytes.length; i++) {
      if ((bytes[i]! & 0xc0) === 0x80 || (bytes[i - 1] === 0x0d && bytes[i] === 0x0a)) cuts.push(i);
    }
    const started = await provider(cut(text, cuts));
    server = started.server;
    const seen: string[] = [];
    const completion = await chat(started.endpoint, REQUEST, { onDelta: (d) => seen.push(d) });
    assert.deepEqual(seen, deltas);
    assert.equal(completion.text, deltas.join(''));
    assert.equal(completion.tokensIn, 3);
    assert.equal(completion.tokensOut, 6);
  });

  it('an answer cut inside the last event fails as bad_response, with the deltas before it delivered', async () => {
    const text = `data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\ndata: [DO`;
    const started = await provider(cut(text, [10, 60]));
    server = started.server;
    const seen: string[] = [];
    const error: unknown = await chat(started.endpoint, REQUEST, { onDelta: (d) => seen.push(d) }).then(
      () => assert.fail('should fail'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.failure, 'bad_response');
    assert.deepEqual(seen, ['a', 'b']);
  });

  it('an answer with no event at all shows its first bytes in the detail, multi-byte text intact', async () => {
    const started = await provider(cut('<html>Überlastet – bitte später</html>', [8, 20]));
    server = started.server;
    const error: unknown = await chat(started.endpoint, REQUEST, { onDelta: () => undefined }).then(
      () => assert.fail('should fail'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.failure, 'bad_response');
    assert.match(error.detail, /no server-sent events in the answer: <html>Überlastet – bitte später<\/html>/);
  });
});
