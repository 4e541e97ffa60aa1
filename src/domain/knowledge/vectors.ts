import { PROVIDERS } from '../../../config/providers';
import type { ProviderEndpoint } from '../../ai/providers/types';

/** The embeddings model of an endpoint's provider, or null when it offers none (config/providers.ts). */
export function embeddingModelOf(endpoint: ProviderEndpoint | null): string | null {
  return endpoint ? PROVIDERS[endpoint.slug].embeddingModel : null;
}

/** A unit vector as stored in `knowledge_chunks.embedding`: little-endian float32 (migration 0015). */
export function toBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes;
}

/** The dot product of a stored vector and a unit vector: their cosine. 0 when the lengths differ (another model). */
export function cosine(stored: Buffer, vector: Float32Array): number {
  if (stored.length !== vector.length * 4) return 0;
  let dot = 0;
  for (let i = 0; i < vector.length; i++) dot += stored.readFloatLE(i * 4) * vector[i]!;
  return dot;
}
