import { QueryTypes } from 'sequelize';
import { resolveEndpoint, type EndpointDeps } from '../../ai/endpoint';
import { embedTexts } from '../../ai/providers/embeddings';
import { Chatbot, KnowledgeChunk, type KnowledgeSource } from '../../models';
import { embeddingModelOf, toBytes } from './vectors';

/** Passages per embeddings request: well under every provider's input limits at 1,200 characters each. */
const BATCH = 64;

/**
 * Stores a vector for each passage of a freshly indexed source (its crawled pages included) when the
 * chatbot's provider offers embeddings and the workspace (or the platform) has a key for it. Never
 * fails the indexing: a provider that is down, refuses or answers nonsense leaves the remaining
 * passages without vectors, and retrieval ranks those by their words alone (meaning.ts).
 */
export async function embedPassages(deps: EndpointDeps, source: Pick<KnowledgeSource, 'id' | 'companyId' | 'chatbotId'>): Promise<void> {
  try {
    const chatbot = await Chatbot.findByPk(source.chatbotId, { attributes: ['id', 'provider'] });
    if (!chatbot) return;
    const endpoint = await resolveEndpoint(deps, source.companyId, chatbot.provider);
    const model = embeddingModelOf(endpoint);
    if (!endpoint || !model) return;
    const passages = await KnowledgeChunk.sequelize!.query<{ id: string; text: string }>(
      `SELECT id, title || E'\\n\\n' || content AS text FROM knowledge_chunks
        WHERE source_id = :sourceId OR source_id IN (SELECT id FROM knowledge_sources WHERE parent_id = :sourceId)
        ORDER BY id`,
      { replacements: { sourceId: source.id }, type: QueryTypes.SELECT },
    );
    for (let i = 0; i < passages.length; i += BATCH) {
      const batch = passages.slice(i, i + BATCH);
      const vectors = await embedTexts(endpoint, model, batch.map((passage) => passage.text));
      // A passage replaced by a re-index meanwhile is simply not there to update.
      await KnowledgeChunk.sequelize!.query(
        `UPDATE knowledge_chunks c SET embedding = v.embedding, embedding_model = $3
           FROM unnest($1::bigint[], $2::bytea[]) AS v(id, embedding) WHERE c.id = v.id`,
        { bind: [batch.map((passage) => passage.id), vectors.map(toBytes), model] },
      );
    }
  } catch (error) {
    deps.logger.warn({ err: error, sourceId: source.id }, 'passages not embedded; retrieval ranks them by their words');
  }
}
