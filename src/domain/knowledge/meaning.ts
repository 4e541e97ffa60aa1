import type { Logger } from 'pino';
import { QueryTypes } from 'sequelize';
import { embedTexts } from '../../ai/providers/embeddings';
import type { ProviderEndpoint } from '../../ai/providers/types';
import { KnowledgeChunk } from '../../models';
import { retrievePassages, type Passage } from './retrieve';
import { cosine, embeddingModelOf } from './vectors';

/**
 * Lexical candidates re-ranked by meaning. Any-word full text puts the right passage among its first
 * 50 for 99-100% of the benchmark's questions (against 74-80% among its first 3), so the vectors only
 * have to order those: no vector index, and the cost does not grow with the knowledge base.
 */
const CANDIDATES = 50;
/** Reciprocal rank fusion's constant (Cormack et al. 2009, the usual 60): neither ranking dominates. */
const FUSION_K = 60;

/**
 * The chatbot's best passages for a question. Without an endpoint whose provider offers embeddings
 * this is retrievePassages. Else the lexical candidates' vectors (by that model) are read, and when
 * any has one the question is embedded through the provider and the candidates are re-ranked by
 * reciprocal rank fusion of their lexical rank and their cosine rank (a candidate without a vector
 * keeps its lexical share only). A chatbot with no knowledge, or none embedded, calls no provider.
 * A failed embeddings call falls back to the lexical ranking: a reply never fails for it.
 */
export async function retrieveByMeaning(
  deps: { logger: Logger },
  endpoint: ProviderEndpoint | null,
  chatbotId: number,
  question: string,
  limit: number,
): Promise<Passage[]> {
  const model = embeddingModelOf(endpoint);
  if (!endpoint || !model) return retrievePassages(chatbotId, question, limit);
  const candidates = await retrievePassages(chatbotId, question, Math.max(CANDIDATES, limit));
  if (candidates.length <= 1) return candidates;
  const stored = await vectorsOf(candidates, model);
  if (!stored.size) return candidates.slice(0, limit);
  const vector = await embedTexts(endpoint, model, [question]).then(
    ([embedded]) => embedded,
    (error: unknown) => {
      deps.logger.warn({ err: error, chatbotId }, 'question not embedded; passages ranked by their words');
      return undefined;
    },
  );
  if (!vector) return candidates.slice(0, limit);
  const byMeaning = candidates
    .filter((passage) => stored.has(passage.chunkId))
    .map((passage) => ({ passage, similarity: cosine(stored.get(passage.chunkId)!, vector) }))
    .sort((a, b) => b.similarity - a.similarity);
  const fused = new Map(candidates.map((passage, rank) => [passage, 1 / (FUSION_K + rank + 1)]));
  byMeaning.forEach(({ passage }, rank) => fused.set(passage, fused.get(passage)! + 1 / (FUSION_K + rank + 1)));
  return [...fused]
    .sort(([a, x], [b, y]) => y - x || a.chunkId - b.chunkId)
    .slice(0, limit)
    .map(([passage]) => passage);
}

async function vectorsOf(passages: Passage[], model: string): Promise<Map<number, Buffer>> {
  const rows = await KnowledgeChunk.sequelize!.query<{ id: string; embedding: Buffer }>(
    `SELECT id, embedding FROM knowledge_chunks WHERE id IN (:ids) AND embedding_model = :model AND embedding IS NOT NULL`,
    { replacements: { ids: passages.map((passage) => passage.chunkId), model }, type: QueryTypes.SELECT },
  );
  return new Map(rows.map((row) => [Number(row.id), row.embedding]));
}
