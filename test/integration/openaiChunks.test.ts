import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chat, ProviderError, type ChatRequest, type ProviderEndpoint } from '../../src/ai/providers';
import { OpenAiChunks } from '../../src/ai/providers/openaiChunks';

const REQUEST: ChatRequest = { model: 'm', system: '', messages: [{ role: 'user', content: 'hi' }], maxTokens: 64 };

/** What the adapter reads of a chunk parsed whole: the reference every quick read must agree with. */
function reference(data: string): { delta?: string; finished: boolean; usage: boolean; bad: boolean } {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return { finished: false, usage: false, bad: true };
  }
  const object = typeof chunk === 'object' && chunk !== null && !Array.isArray(chunk) ? (chunk as Record<string, unknown>) : undefined;
  if (!object || object.error) return { finished: false, usage: false, bad: true };
  const choices = Array.isArray(object.choices) ? (object.choices as unknown[]) : [];
  const choice = choices[0] as { delta?: { content?: unknown }; finish_reason?: unknown } | undefined;
  const content = typeof choice === 'object' && choice !== null && typeof choice.delta === 'object' && choice.delta !== null ? choice.delta.content : undefined;
  const usage = object.usage;
  return {
    ...(typeof content === 'string' && content ? { delta: content } : {}),
    finished: typeof choice?.finish_reason === 'string' && choice.finish_reason !== '',
    usage: typeof usage === 'object' && usage !== null && !Array.isArray(usage),
    bad: false,
  };
}

const chunk = (fields: Record<string, unknown>): string => JSON.stringify(fields);
const openaiDelta = (content: string, created = 1_700_000_000, extra: Record<string, unknown> = {}) =>
  chunk({ id: 'chatcmpl-9x', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini-2024-07-18', service_tier: 'default', system_fingerprint: 'fp_e2bc', choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }], usage: null, ...extra });

/** The chunk shapes of the providers the OpenAI adapter speaks (role chunk, deltas, finish, usage), each as a stream. */
const CORPUS: Record<string, string[]> = {
  openai: [
    chunk({ id: 'chatcmpl-9x', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', system_fingerprint: 'fp_e2bc', choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], usage: null }),
    ...['Hello', ',', ' wor', 'ld', ' é€😀', ' "quoted"', ' back\\slash', ' line\nbreak', ' tab\t', '</script>', ' \u2028sep', ''].map((t) => openaiDelta(t)),
    openaiDelta(' next second', 1_700_000_001),
    openaiDelta(' and on', 1_700_000_001),
    chunk({ id: 'chatcmpl-9x', object: 'chat.completion.chunk', created: 1_700_000_001, model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], usage: null }),
    chunk({ id: 'chatcmpl-9x', object: 'chat.completion.chunk', created: 1_700_000_001, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } }),
  ],
  'openai with obfuscation': ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'f'].map((t, i) => openaiDelta(t, 1_700_000_000, { obfuscation: 'x'.repeat(i + 1) })),
  deepseek: ['Hi', ' there', '!'].map((content) =>
    chunk({ id: 'd1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'deepseek-chat', system_fingerprint: 'fp_ds', choices: [{ index: 0, delta: { content, reasoning_content: null }, logprobs: null, finish_reason: null }] }),
  ),
  groq: [
    chunk({ id: 'g1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'llama-3.1-8b-instant', system_fingerprint: 'fp_g', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], x_groq: { id: 'req_1' } }),
    ...['Ground', 'ed', ' text'].map((content) => chunk({ id: 'g1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'llama-3.1-8b-instant', system_fingerprint: 'fp_g', choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }] })),
    chunk({ id: 'g1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'llama-3.1-8b-instant', choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], x_groq: { id: 'req_1', usage: { prompt_tokens: 5, completion_tokens: 3 } } }),
  ],
  mistral: [
    ...['Bon', 'jour', ' à', ' vous'].map((content) => chunk({ id: 'm1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'mistral-small-latest', choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    chunk({ id: 'm1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'mistral-small-latest', choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, total_tokens: 9, completion_tokens: 4 } }),
  ],
  kimi: [
    ...['你', '好', '。'].map((content) => chunk({ id: 'k1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'moonshot-v1-8k', choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    chunk({ id: 'k1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'moonshot-v1-8k', choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 } }] }),
  ],
  openrouter: ['It', ' works', '.'].map((content) =>
    chunk({ id: 'gen-1', provider: 'OpenAI', model: 'openai/gpt-4o', object: 'chat.completion.chunk', created: 1_700_000_000, choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null, native_finish_reason: null, logprobs: null }] }),
  ),
  // Written by hand, as a provider might escape: non-ASCII as \u escapes, a slash as \/, spaces between tokens.
  'escaped by hand': [
    '{"id":"h","choices":[{"index":0,"delta":{"content":"caf\\u00e9"},"finish_reason":null}]}',
    '{"id":"h","choices":[{"index":0,"delta":{"content":"a\\/b"},"finish_reason":null}]}',
    '{"id":"h","choices":[{"index":0,"delta":{"content":"plain"},"finish_reason":null}]}',
    '{"id":"h","choices":[{"index":0,"delta":{"content":"\\ud83d\\ude00"},"finish_reason":null}]}',
    '{"id":"h", "choices": [ {"index":0,"delta":{"content" : "spaced"},"finish_reason":null} ] }',
  ],
};

/**
 * Chunks built to be misread by a reader that trusted the template's two ends: each starts and ends
 * exactly as the template `{"id":"x","choices":[{"index":0,"delta":{"content":"T"},"finish_reason":null}]}`
 * does, but what lies between is not one string literal, or the template itself is not what it seems.
 */
const TEMPLATE = (content: string) => `{"id":"x","choices":[{"index":0,"delta":{"content":${content}},"finish_reason":null}]}`;
const ADVERSARIAL: Record<string, string[]> = {
  'a finish reason slipped in between': [TEMPLATE('"T"'), TEMPLATE('"a"},"finish_reason":"stop","z":{"q":"b"')],
  'a second choice slipped in': [TEMPLATE('"T"'), TEMPLATE('"a"},"finish_reason":null},{"delta":{"content":"b"')],
  'an error slipped in': [TEMPLATE('"T"'), `{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}],"error":{"message":"x"},"z":[{"q":{"content":"b"},"finish_reason":null}]}`],
  'a quote escaped at the end': [TEMPLATE('"T"'), TEMPLATE('"a\\"'), TEMPLATE('"a\\\\"')],
  'escapes that end the literal early': [TEMPLATE('"T"'), TEMPLATE('"a\\\\","content":"b"')],
  'not a string': [TEMPLATE('"T"'), TEMPLATE('null'), TEMPLATE('12'), TEMPLATE('""'), TEMPLATE('["a"]'), TEMPLATE('{"a":"b"}')],
  'a raw control character': [TEMPLATE('"T"'), TEMPLATE('"a\nb"'), TEMPLATE('"ok"')],
  'bad escapes': [TEMPLATE('"T"'), TEMPLATE('"\\x41"'), TEMPLATE('"\\u12"'), TEMPLATE('"fine"')],
  'a duplicate key in the template': [
    '{"id":"x","choices":[{"index":0,"delta":{"content":"first","content":"T"},"finish_reason":null}]}',
    '{"id":"x","choices":[{"index":0,"delta":{"content":"first","content":"U"},"finish_reason":null}]}',
    '{"id":"x","choices":[{"index":0,"delta":{"content":"U","content":"first"},"finish_reason":null}]}',
  ],
  'the text also elsewhere in the chunk': [
    '{"id":"T","choices":[{"index":0,"delta":{"content":"T"},"finish_reason":null}],"model":"T"}',
    '{"id":"T","choices":[{"index":0,"delta":{"content":"T"},"finish_reason":null}],"model":"U"}',
    '{"id":"T","choices":[{"index":0,"delta":{"content":"U"},"finish_reason":null}],"model":"T"}',
  ],
  'a finish reason later in the template': [
    '{"choices":[{"index":0,"delta":{"content":"T"},"finish_reason":"length"}]}',
    '{"choices":[{"index":0,"delta":{"content":"U"},"finish_reason":"length"}]}',
  ],
  'usage in the template': [
    '{"choices":[{"index":0,"delta":{"content":"T"},"finish_reason":null}],"usage":{"prompt_tokens":1}}',
    '{"choices":[{"index":0,"delta":{"content":"U"},"finish_reason":null}],"usage":{"prompt_tokens":1}}',
  ],
  'the content not the first choice': [
    '{"choices":[{"index":0,"delta":{},"finish_reason":null},{"index":1,"delta":{"content":"T"},"finish_reason":null}]}',
    '{"choices":[{"index":0,"delta":{},"finish_reason":null},{"index":1,"delta":{"content":"U"},"finish_reason":null}]}',
  ],
};

/** Each chunk through OpenAiChunks as the adapter uses it (quick, else parsed whole and learned), compared with the whole parse. */
function readAll(chunks: string[]): { hits: number } {
  const reader = new OpenAiChunks();
  let hits = 0;
  for (const [i, data] of chunks.entries()) {
    const quick = reader.quick(data);
    const expected = reference(data);
    if (quick !== undefined) {
      hits++;
      assert.deepEqual({ ...(quick ? { delta: quick } : {}), finished: false, usage: false, bad: false }, expected, `chunk ${i} read quick as ${JSON.stringify(quick)}: ${data}`);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue; // the adapter fails the stream here, as before
    }
    reader.learn(data, parsed);
  }
  return { hits };
}

describe('OpenAI stream chunks read without a parse', () => {
  for (const [name, chunks] of Object.entries(CORPUS)) {
    it(`${name}: every chunk reads as the whole parse reads it`, () => {
      readAll(chunks);
    });
  }

  it('the common shapes are read quick (the fast path is taken)', () => {
    // openai: 13 deltas of one second after the first learned; the second `created` costs one miss.
    assert.ok(readAll(CORPUS.openai!).hits >= 11);
    for (const name of ['deepseek', 'mistral', 'kimi', 'openrouter']) assert.ok(readAll(CORPUS[name]!).hits >= 2, name);
    assert.equal(readAll(CORPUS.groq!).hits, 2);
  });

  it('a shape that changes every chunk is given up after three misses in a row', () => {
    assert.equal(readAll(CORPUS['openai with obfuscation']!).hits, 0);
    // Given up: a chunk of the shape learned last is not learned again, so the same chunk twice still misses.
    const reader = new OpenAiChunks();
    const chunks = CORPUS['openai with obfuscation']!;
    for (const data of chunks) if (reader.quick(data) === undefined) reader.learn(data, JSON.parse(data));
    const last = chunks[chunks.length - 1]!;
    reader.learn(last, JSON.parse(last));
    assert.equal(reader.quick(last), undefined);
  });

  for (const [name, chunks] of Object.entries(ADVERSARIAL)) {
    it(`never misreads: ${name}`, () => {
      readAll(chunks);
    });
  }
});

/** A provider answering every call with these SSE data lines, then [DONE]. */
async function provider(datas: string[]): Promise<{ server: Server; endpoint: ProviderEndpoint }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${datas.map((d) => `data: ${d}\n\n`).join('')}data: [DONE]\n\n`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: { slug: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test-key-123', timeoutMs: 5_000 } };
}

describe('OpenAI adapter with quick chunks, over HTTP', () => {
  it('streams every delta in order and whole, with usage and the end, for each provider shape', async () => {
    for (const [name, chunks] of Object.entries(CORPUS)) {
      const { server, endpoint } = await provider(chunks);
      try {
        const deltas: string[] = [];
        const completion = await chat(endpoint, REQUEST, { onDelta: (d) => deltas.push(d) });
        const expected = chunks.map(reference).flatMap((r) => (r.delta ? [r.delta] : []));
        assert.deepEqual(deltas, expected, name);
        assert.equal(completion.text, expected.join(''), name);
      } finally {
        server.close();
      }
    }
  });

  it('a chunk that slips a finish reason or an error past the template is read whole', async () => {
    const { server, endpoint } = await provider(ADVERSARIAL['an error slipped in']!);
    try {
      await assert.rejects(chat(endpoint, REQUEST, { onDelta: () => undefined }), (error: unknown) => error instanceof ProviderError && error.failure === 'bad_response' && /error in stream/.test(error.detail));
    } finally {
      server.close();
    }
  });
});
