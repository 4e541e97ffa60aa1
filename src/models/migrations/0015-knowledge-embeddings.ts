import type { Migration } from './types';

/**
 * Retrieval by meaning where the workspace's provider offers embeddings (src/domain/knowledge/meaning.ts):
 *
 * - `embedding`: the passage's vector from the provider's `/embeddings` endpoint, unit length, as
 *   little-endian float32 (bytea: pgvector is not assumed to be installed, and the vectors are only
 *   compared in Node over a question's few dozen lexical candidates, so no vector index is needed).
 * - `embedding_model`: the model that made it. A question is compared only with passages embedded by
 *   the model that embeds the question, so a chatbot moving to another provider never mixes spaces.
 *
 * Nullable columns without defaults: adding them rewrites nothing.
 */
export const knowledgeEmbeddings: Migration = {
  name: '0015-knowledge-embeddings',
  async up({ context: db }) {
    await db.query('ALTER TABLE knowledge_chunks ADD COLUMN embedding bytea, ADD COLUMN embedding_model varchar(100)');
  },
  async down({ context: db }) {
    await db.query('ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS embedding, DROP COLUMN IF EXISTS embedding_model');
  },
};
