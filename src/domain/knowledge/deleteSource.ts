import { rm } from 'node:fs/promises';
import { notFound } from '../../errors';
import { KnowledgeSource, type Chatbot } from '../../models';

/**
 * Removes a top-level source with everything indexed from it: its crawled pages and all passages go
 * by cascade in the same statement, then its stored file if it had one. 404 for a crawled page, a
 * source of another chatbot, or one of another workspace (indistinguishable by design).
 */
export async function deleteSource(chatbot: Chatbot, sourceId: number): Promise<void> {
  const source = await KnowledgeSource.findOne({ where: { id: sourceId, chatbotId: chatbot.id, companyId: chatbot.companyId, parentId: null } });
  if (!source) throw notFound('Knowledge source');
  await source.destroy();
  if (source.filePath) await rm(source.filePath, { force: true });
}
