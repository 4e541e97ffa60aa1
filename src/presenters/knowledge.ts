import type { KnowledgeSource } from '../models';

export const presentV1Knowledge = (source: KnowledgeSource) => ({
  id: source.id,
  title: source.title,
  type: source.type,
  status: source.status,
  chunk_count: source.chunkCount,
});
