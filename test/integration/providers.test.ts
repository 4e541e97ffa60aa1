import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROVIDERS, PROVIDER_SLUGS, type ProviderSlug } from '../../config/providers';
import { chat, ProviderError, type ChatRequest, type ProviderEndpoint, type ProviderFailure } from '../../src/ai/providers';
import { retryPolicy } from '../../src/ai/providers/http';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../support/fakeLlm';

const REPLY = 'The quick brown fox jumps over the lazy dog, then naps by the river bank.';

const REQUEST: ChatRequest = {
  model: 'test-model-1',
  system: 'You are the Parley test bot.',
  messages: [
    { role: 'user', content: 'Hello there' },
    { role: 'assistant', content: 'Hi! How can I help?' },
    { role: 'user', content: 'Tell me about pricing.' },
  ],
  maxTokens: 256,
  temperature: 0.2,
};

describe('AI providers: the three wire protocols against the fake LLM', () => {
  let fake: FakeLlm;
  const productionDelays = retryPolicy.delaysMs;

  before(async () => {
    fake = await startFakeLlm();
  });

  after(async () => {
    retryPolicy.delaysMs = productionDelays;
    await fake.close();
  });

  beforeEach(() => {
    fake.reset();
    retryPolicy.delaysMs = [20, 40];
  });

  function endpoint(slug: ProviderSlug, timeoutMs = 2000): ProviderEndpoint {
    const baseUrl = fake.envFor([slug])[`PROVIDER_${slug.toUpperCase()}_BASE_URL`];
    assert.ok(baseUrl);
    return { slug, baseUrl, apiKey: apiKeyOf(slug), timeoutMs };
  }

  /** The call's rejection, asserted to be a ProviderError of the given kind. */
  async function providerFailure(call: Promise<unknown>, failure: ProviderFailure): Promise<ProviderError> {
    const error: unknown = await call.then(
      () => assert.fail('the call should have failed'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    assert.equal(error.failure, failure, error.detail);
    return error;
  }

  async function closedEarly(request: RecordedRequest | undefined): Promise<boolean> {
    for (let waited = 0; waited < 1000 && !request?.closedEarly; waited += 10) await sleep(10);
    return request?.closedEarly === true;
  }

  describe('streaming, for each of the eight providers', () => {
    for (const slug of PROVIDER_SLUGS) {
      it(`${slug}: deltas in order, scripted usage, request in the ${PROVIDERS[slug].protocol} shape`, async () => {
        fake.script({ reply: REPLY, usage: { in: 42, out: 17 } });
        const deltas: string[] = [];
        const result = await chat(endpoint(slug), REQUEST, { onDelta: (text) => deltas.push(text) });
        assert.ok(deltas.length >= 3, `several deltas, got ${deltas.length}`);
        assert.equal(deltas.join(''), REPLY);
        assert.deepEqual(result, { text: REPLY, model: REQUEST.model, tokensIn: 42, tokensOut: 17 });
        assert.equal(fake.requests.length, 1);
        assertWireRequest(slug, fake.requests[0], true);
      });
    }
  });

  describe('non-streaming, one provider per protocol', () => {
    for (const slug of ['openai', 'mistral', 'claude', 'gemini'] as const) {
      it(`${slug}: one JSON answer with its usage`, async () => {
        fake.script({ reply: REPLY, usage: { in: 11, out: 5 } });
        const result = await chat(endpoint(slug), REQUEST);
        assert.deepEqual(result, { text: REPLY, model: REQUEST.model, tokensIn: 11, tokensOut: 5 });
        assert.equal(fake.requests.length, 1);
        assertWireRequest(slug, fake.requests[0], false);
      });
    }
  });

  describe('usage and answers', () => {
    for (const slug of ['groq', 'claude', 'gemini'] as const) {
      it(`${slug}: estimates ceil(chars / 4) when the provider reports no usage`, async () => {
        fake.script({ reply: REPLY, usage: null });
        const result = await chat(endpoint(slug), REQUEST, { onDelta: () => undefined });
        const promptChars = REQUEST.system.length + REQUEST.messages.reduce((sum, m) => sum + m.content.length, 0);
        assert.equal(result.tokensIn, Math.ceil(promptChars / 4));
        assert.equal(result.tokensOut, Math.ceil(REPLY.length / 4));
      });
    }

    it('answers with the default echo when nothing is scripted', async () => {
      const result = await chat(endpoint('deepseek'), REQUEST, { onDelta: () => undefined });
      assert.equal(result.text, 'Fake reply from openai to: Tell me about pricing.');
    });

    it('gemini: a candidate blocked for SAFETY is an empty answer, not a failure', async () => {
      fake.script({ safetyBlock: true });
      const deltas: string[] = [];
      const result = await chat(endpoint('gemini'), REQUEST, { onDelta: (text) => deltas.push(text) });
      assert.equal(result.text, '');
      assert.deepEqual(deltas, []);
    });

    it('keeps a slow stream alive: the timeout is per chunk, not for the whole answer', async () => {
      fake.script({ reply: REPLY, delayMs: 120 });
      const started = Date.now();
      const result = await chat(endpoint('claude', 300), REQUEST, { onDelta: () => undefined });
      assert.equal(result.text, REPLY);
      assert.ok(Date.now() - started > 300, 'the whole stream took longer than the timeout');
    });
  });

  describe('failures', () => {
    for (const slug of ['openai', 'claude', 'gemini'] as const) {
      it(`${slug}: 401 is an auth failure, not retried, and the detail never holds the key`, async () => {
        fake.script({ fail: { status: 401, message: `Invalid API key ${apiKeyOf(slug)}` } });
        const error = await providerFailure(chat(endpoint(slug), REQUEST, { onDelta: () => undefined }), 'auth');
        assert.equal(fake.requests.length, 1);
        assert.equal(error.provider, slug);
        assert.match(error.detail, /401/);
        assert.match(error.detail, /Invalid API key/);
        assert.ok(!error.detail.includes(apiKeyOf(slug)), error.detail);
      });
    }

    it("gemini: a 400 with reason API_KEY_INVALID is an auth failure (Gemini's way to say 401)", async () => {
      fake.script({ fail: { status: 400, message: 'API key not valid. Please pass a valid API key.', reason: 'API_KEY_INVALID' } });
      await providerFailure(chat(endpoint('gemini'), REQUEST), 'auth');
      assert.equal(fake.requests.length, 1);
    });

    it('400 is rejected, not retried', async () => {
      fake.script({ fail: { status: 400, message: 'max_tokens is too large' } });
      const error = await providerFailure(chat(endpoint('kimi'), REQUEST), 'rejected');
      assert.match(error.detail, /max_tokens is too large/);
      assert.equal(fake.requests.length, 1);
    });

    it('503 twice then success: succeeds after two retries', async () => {
      fake.script({ reply: REPLY, fail: { status: 503, times: 2 } });
      const deltas: string[] = [];
      const result = await chat(endpoint('openrouter'), REQUEST, { onDelta: (text) => deltas.push(text) });
      assert.equal(result.text, REPLY);
      assert.equal(deltas.join(''), REPLY);
      assert.equal(fake.requests.length, 3);
    });

    it('a 529 that persists is a server failure after at most two retries', async () => {
      fake.script({ fail: { status: 529, message: 'Overloaded' } });
      const error = await providerFailure(chat(endpoint('claude'), REQUEST), 'server');
      assert.match(error.detail, /529 overloaded_error: Overloaded/);
      assert.equal(fake.requests.length, 3);
    });

    it('429 with Retry-After: 0 is retried at once, ahead of the backoff', async () => {
      retryPolicy.delaysMs = [5000, 5000];
      fake.script({ reply: REPLY, fail: { status: 429, retryAfter: 0, times: 1 } });
      const started = Date.now();
      const result = await chat(endpoint('groq'), REQUEST, { onDelta: () => undefined });
      assert.equal(result.text, REPLY);
      assert.equal(fake.requests.length, 2);
      assert.ok(Date.now() - started < 1000, 'Retry-After won over the 5 s backoff');
    });

    it('429 that persists is rate_limited', async () => {
      fake.script({ fail: { status: 429, retryAfter: 0 } });
      await providerFailure(chat(endpoint('gemini'), REQUEST), 'rate_limited');
      assert.equal(fake.requests.length, 3);
    });

    it('a connection reset before the headers is retried', async () => {
      fake.script({ reply: REPLY, reset: 'before-headers', times: 1 });
      const result = await chat(endpoint('mistral'), REQUEST, { onDelta: () => undefined });
      assert.equal(result.text, REPLY);
      assert.equal(fake.requests.length, 2);
    });

    it('a connection reset mid-stream fails as unreachable and is not retried', async () => {
      fake.script({ reply: REPLY, reset: 'mid-stream' });
      const deltas: string[] = [];
      await providerFailure(chat(endpoint('claude'), REQUEST, { onDelta: (text) => deltas.push(text) }), 'unreachable');
      assert.equal(fake.requests.length, 1);
      assert.equal(deltas.length, 1, 'the delta before the reset was delivered');
    });

    it('a stall before the headers times out after timeoutMs, without retry', async () => {
      fake.script({ stall: 'before-headers' });
      const started = Date.now();
      await providerFailure(chat(endpoint('openai', 300), REQUEST, { onDelta: () => undefined }), 'timeout');
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.equal(fake.requests.length, 1);
      assert.ok(await closedEarly(fake.requests[0]), 'the connection was closed');
    });

    it('a stall mid-stream times out and closes the connection', async () => {
      fake.script({ reply: REPLY, stall: 'mid-stream' });
      const deltas: string[] = [];
      const started = Date.now();
      await providerFailure(chat(endpoint('gemini', 300), REQUEST, { onDelta: (text) => deltas.push(text) }), 'timeout');
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.equal(deltas.length, 1);
      assert.equal(fake.requests.length, 1);
      assert.ok(await closedEarly(fake.requests[0]));
    });

    it('a refused connection is unreachable', async () => {
      const closed = createServer().listen(0, '127.0.0.1');
      await once(closed, 'listening');
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const error = await providerFailure(
        chat({ ...endpoint('deepseek'), baseUrl: `http://127.0.0.1:${port}/v1` }, REQUEST, { onDelta: () => undefined }),
        'unreachable',
      );
      assert.match(error.detail, /ECONNREFUSED/);
    });

    for (const [slug, type, failure] of [
      ['claude', 'overloaded_error', 'server'],
      ['claude', 'invalid_request_error', 'bad_response'],
      ['openai', 'server_error', 'bad_response'],
      ['gemini', 'internal', 'bad_response'],
    ] as const) {
      it(`${slug}: an error reported inside the stream (${type}) is ${failure}, not retried`, async () => {
        fake.script({ reply: REPLY, streamError: { type, message: 'Something broke upstream' } });
        const deltas: string[] = [];
        const error = await providerFailure(chat(endpoint(slug), REQUEST, { onDelta: (text) => deltas.push(text) }), failure);
        assert.match(error.detail, /Something broke upstream/);
        assert.equal(deltas.length, 1);
        assert.equal(fake.requests.length, 1);
      });
    }
  });

  describe('caller abort', () => {
    it('mid-stream: rejects with the abort reason and closes the upstream connection', async () => {
      fake.script({ reply: REPLY, delayMs: 100 });
      const controller = new AbortController();
      const reason = new Error('visitor went away');
      const deltas: string[] = [];
      const call = chat(endpoint('claude'), REQUEST, {
        signal: controller.signal,
        onDelta: (text) => {
          deltas.push(text);
          controller.abort(reason);
        },
      });
      await assert.rejects(call, (error: unknown) => error === reason);
      assert.equal(deltas.length, 1);
      assert.ok(await closedEarly(fake.requests[0]), 'the fake saw the socket close before its answer ended');
    });

    it('during a retry wait: rejects with the abort reason at once', async () => {
      retryPolicy.delaysMs = [5000, 5000];
      fake.script({ fail: { status: 503 } });
      const controller = new AbortController();
      const reason = new Error('shutting down');
      const started = Date.now();
      const call = chat(endpoint('openai'), REQUEST, { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 100);
      await assert.rejects(call, (error: unknown) => error === reason);
      assert.ok(Date.now() - started < 1000);
      assert.equal(fake.requests.length, 1);
    });

    it('before the call: rejects with the reason without a request', async () => {
      const reason = new Error('already gone');
      await assert.rejects(chat(endpoint('gemini'), REQUEST, { signal: AbortSignal.abort(reason) }), (error: unknown) => error === reason);
      assert.equal(fake.requests.length, 0);
    });
  });
});

function apiKeyOf(slug: ProviderSlug): string {
  return `test-key-${slug}-0123456789`;
}

/** The request arrived with the protocol's path, auth headers and fields for model, system prompt and turns. */
function assertWireRequest(slug: ProviderSlug, request: RecordedRequest | undefined, streaming: boolean): void {
  assert.ok(request);
  const { protocol } = PROVIDERS[slug];
  assert.equal(request.protocol, protocol);
  assert.equal(request.stream, streaming);
  assert.match(String(request.headers['content-type']), /^application\/json/);
  const key = apiKeyOf(slug);
  const turns = REQUEST.messages.map(({ role, content }) => ({ role, content }));

  if (protocol === 'openai') {
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${key}`);
    assert.equal(request.body.model, REQUEST.model);
    assert.deepEqual(request.body.messages, [{ role: 'system', content: REQUEST.system }, ...turns]);
    assert.equal(request.body.stream, streaming);
    assert.deepEqual(request.body.stream_options, streaming ? { include_usage: true } : undefined);
    assert.equal(request.body.temperature, REQUEST.temperature);
    // OpenAI itself wants max_completion_tokens; the compatible providers only know max_tokens.
    const [sent, absent] = slug === 'openai' ? ['max_completion_tokens', 'max_tokens'] : ['max_tokens', 'max_completion_tokens'];
    assert.equal(request.body[sent], REQUEST.maxTokens);
    assert.equal(request.body[absent], undefined);
  } else if (protocol === 'anthropic') {
    assert.equal(request.path, '/v1/messages');
    assert.equal(request.headers['x-api-key'], key);
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(request.body, {
      model: REQUEST.model,
      system: REQUEST.system,
      messages: turns,
      max_tokens: REQUEST.maxTokens,
      temperature: REQUEST.temperature,
      stream: streaming,
    });
  } else {
    const method = streaming ? 'streamGenerateContent?alt=sse' : 'generateContent';
    assert.equal(request.path, `/v1beta/models/${REQUEST.model}:${method}`);
    assert.equal(request.headers['x-goog-api-key'], key);
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(request.body, {
      systemInstruction: { parts: [{ text: REQUEST.system }] },
      contents: REQUEST.messages.map(({ role, content }) => ({ role: role === 'assistant' ? 'model' : 'user', parts: [{ text: content }] })),
      generationConfig: { maxOutputTokens: REQUEST.maxTokens, temperature: REQUEST.temperature },
    });
  }
}
