import type { KnowledgeSource } from '../models';
import { isoWithOffset } from './time';

export const presentV1Knowledge = (source: KnowledgeSource) => ({
  id: source.id,
  title: source.title,
  type: source.type,
  status: source.status,
  chunk_count: source.chunkCount,
});

export const presentPortalKnowledge = (source: KnowledgeSource) => ({
  id: source.id,
  type: source.type,
  title: source.title,
  source_url: source.sourceUrl,
  status: source.status,
  chunk_count: source.chunkCount,
  created_at: isoWithOffset(source.createdAt),
});
