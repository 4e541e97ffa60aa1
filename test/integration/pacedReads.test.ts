import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { chat, ProviderError, type ChatRequest, type ProviderEndpoint } from '../../src/ai/providers';
import { PacedRead, pacing } from '../../src/net/pacedRead';
import { BUSY_ABOVE, flushAtTick, WINDOW_MS } from '../../src/net/streamWindow';

const REQUEST: ChatRequest = { model: 'm', system: '', messages: [{ role: 'user', content: 'hi' }], maxTokens: 64 };
const TOKENS = 30;
const EVERY_MS = 10;
const frame = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const token = (i: number) => `${i} `;
const whole = Array.from({ length: TOKENS }, (_, i) => token(i)).join('');

/**
 * An OpenAI-compatible provider that answers only once `together` requests have arrived, then writes
 * every answer's tokens one network write each, EVERY_MS apart, and ends the answers only once all
 * their tokens are written: all the streams are open, and read, at once. `failAt` ends the first
 * answer's connection after that many tokens.
 */
async function provider(together: number, failAt?: number): Promise<{ server: Server; endpoint: ProviderEndpoint }> {
  const waiting: ServerResponse[] = [];
  let written = 0;
  let allWritten!: () => void;
  const ends = new Promise<void>((resolve) => (allWritten = resolve));
  const stream = async (res: ServerResponse, n: number) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < TOKENS; i++) {
      if (n === 0 && i === failAt) {
        res.destroy();
        if (++written === together) allWritten();
        return;
      }
      res.write(frame(token(i)));
      await sleep(EVERY_MS);
    }
    if (++written === together) allWritten();
    await ends;
    res.end('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      waiting.push(res);
      if (waiting.length === together) waiting.forEach((each, n) => void stream(each, n));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: { slug: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test-paced', timeoutMs: 10_000 } };
}

interface Followed {
  deltas: string[];
  text: string;
  /** Separate turns of the event loop that handed deltas over: one per socket read. */
  reads: number;
  /** From the first delta to the last. */
  ms: number;
}

async function follow(endpoint: ProviderEndpoint): Promise<Followed> {
  const deltas: string[] = [];
  let reads = 0;
  let inRead = false;
  let first = 0;
  let last = 0;
  const completion = await chat(endpoint, REQUEST, {
    onDelta: (delta) => {
      deltas.push(delta);
      last = performance.now();
      first ||= last;
      if (inRead) return;
      inRead = true;
      reads++;
      setImmediate(() => (inRead = false));
    },
  });
  return { deltas, text: completion.text, reads, ms: last - first };
}

describe('Provider reads paced while many answers stream (src/net/pacedRead.ts)', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it(`with more than ${BUSY_ABOVE} streams open, every token arrives in order, several to a read; the sockets are reused after`, async () => {
    const streams = BUSY_ABOVE + 16;
    const started = await provider(streams);
    server = started.server;
    const pausedBefore = pacing.paused;
    const answers = await Promise.all(Array.from({ length: streams }, () => follow(started.endpoint)));
    for (const answer of answers) {
      assert.deepEqual(answer.deltas, Array.from({ length: TOKENS }, (_, i) => token(i)));
      assert.equal(answer.text, whole);
    }
    assert.ok(pacing.paused > pausedBefore, 'reads waited for the tick');
    for (const answer of answers) {
      // At most one read a window (ticks are WINDOW_MS apart or more), plus the first: about 8 for the
      // 30 tokens at 10 ms, where each token is a read of its own unpaced. The machine's load stretches
      // the time and the bound alike.
      const bound = Math.floor(answer.ms / WINDOW_MS) + 3;
      assert.ok(answer.reads <= bound, `${answer.reads} reads in ${answer.ms.toFixed(0)} ms for ${TOKENS} tokens (at most ${bound})`);
    }

    // The pool's connections, left after paced reads, answer the next call (they read again).
    server.close();
    const next = await provider(1);
    server = next.server;
    const pausedNow = pacing.paused;
    const alone = await follow(next.endpoint);
    assert.equal(alone.text, whole);
    assert.equal(pacing.paused, pausedNow, 'one stream alone: no read waits');
  });

  it('a connection lost mid-answer while reads are paced fails that answer only, with its earlier deltas delivered', async () => {
    const streams = BUSY_ABOVE + 8;
    const started = await provider(streams, 12);
    server = started.server;
    const outcomes = await Promise.all(
      Array.from({ length: streams }, () =>
        follow(started.endpoint).then(
          (answer) => ({ ok: true as const, answer }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      ),
    );
    const failed = outcomes.filter((outcome) => !outcome.ok);
    assert.equal(failed.length, 1);
    const [lost] = failed;
    assert.ok(lost && !lost.ok && lost.error instanceof ProviderError);
    assert.equal(lost.error.failure, 'unreachable');
    for (const outcome of outcomes) if (outcome.ok) assert.equal(outcome.answer.text, whole);
  });

  it('a caller abort while reads are paced rejects at once and leaves the other streams whole', async () => {
    const streams = BUSY_ABOVE + 8;
    const started = await provider(streams);
    server = started.server;
    const controller = new AbortController();
    let seen = 0;
    const aborted = chat(started.endpoint, REQUEST, {
      signal: controller.signal,
      onDelta: () => {
        if (++seen === 5) controller.abort(new Error('visitor left'));
      },
    }).then(
      () => assert.fail('should be aborted'),
      (error: unknown) => error,
    );
    const others = Array.from({ length: streams - 1 }, () => follow(started.endpoint));
    const reason = await aborted;
    assert.equal((reason as Error).message, 'visitor left');
    assert.equal(seen, 5, 'no delta after the abort');
    for (const answer of await Promise.all(others)) assert.equal(answer.text, whole);
  });
});

describe('The stream window: a tick resumes reads, then writes', () => {
  it('a socket paused after a read is read again at the tick, and what it held is written in that same turn of the event loop', async () => {
    // More than BUSY_ABOVE streamed reads open: these stand-ins only count.
    const crowd = Array.from({ length: BUSY_ABOVE }, () => new PacedRead(null));
    const tcp = createNetServer((socket) => {
      socket.write('a');
      setTimeout(() => socket.end('b'), 10);
    });
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    const client = connect((tcp.address() as AddressInfo).port, '127.0.0.1');
    const paced = new PacedRead(client);
    const order: string[] = [];
    const writer = { flush: () => order.push('write') };
    const pausedBefore = pacing.paused;
    try {
      client.setEncoding('utf8');
      client.on('data', (text: string) => {
        order.push(`read ${text}`);
        if (text === 'a') {
          paced.afterRead();
          return;
        }
        // A delta held for the window by this read: written after the tick's reads, not a window later.
        flushAtTick(writer);
        setTimeout(() => order.push('next turn'), 0);
      });
      await once(client, 'end');
      await sleep(WINDOW_MS * 2);
      assert.equal(pacing.paused, pausedBefore + 1, 'the socket waited for the tick after its first read');
      assert.deepEqual(order.slice(0, 4), ['read a', 'read b', 'write', 'next turn']);
    } finally {
      paced.release();
      crowd.forEach((each) => each.release());
      client.destroy();
      tcp.close();
    }
  });
});
