import { failure, postJson, type ProviderCall } from './http';
import type { ProviderEndpoint } from './types';
import { asArray, asString, dig, joinUrl } from './wire';

/**
 * Vectors for texts from an OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Mistral): one per
 * text, in the texts' order (the answer says each vector's `index`), scaled to unit length so that a
 * dot product is their cosine. Rejects with a ProviderError like a chat call (same retries, timeout,
 * redaction); an answer of the wrong shape or size is `bad_response`.
 */
export async function embedTexts(endpoint: ProviderEndpoint, model: string, texts: readonly string[]): Promise<Float32Array[]> {
  if (!texts.length) return [];
  const call: ProviderCall = {
    endpoint,
    url: joinUrl(endpoint.baseUrl, '/embeddings'),
    headers: { authorization: `Bearer ${endpoint.apiKey}` },
    body: { model, input: texts, encoding_format: 'float' },
  };
  const body = await postJson(call);
  const data = dig(body, 'data');
  if (!Array.isArray(data) || data.length !== texts.length) {
    throw failure(call, 'bad_response', `expected ${texts.length} embeddings: ${asString(dig(body, 'error', 'message')) ?? JSON.stringify(body)}`);
  }
  const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
  for (const [position, item] of data.entries()) {
    const index = dig(item, 'index');
    const values = asArray(dig(item, 'embedding'));
    const slot = typeof index === 'number' ? index : position;
    if (!values.length || !values.every((v) => typeof v === 'number' && Number.isFinite(v)) || slot < 0 || slot >= texts.length || vectors[slot]) {
      throw failure(call, 'bad_response', `embedding ${position} is not a list of numbers for a distinct input`);
    }
    vectors[slot] = unit(values as number[]);
  }
  const dimensions = vectors[0]!.length;
  if (vectors.some((vector) => vector.length !== dimensions)) throw failure(call, 'bad_response', 'embeddings of different lengths in one answer');
  return vectors;
}

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values) || 1;
  return Float32Array.from(values, (value) => value / norm);
}
