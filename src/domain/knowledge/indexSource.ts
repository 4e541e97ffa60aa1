import { QueryTypes, type Transaction } from 'sequelize';
import type { Config } from '../../../config/env';
import type { EndpointDeps } from '../../ai/endpoint';
import { KnowledgeChunk, KnowledgeSource } from '../../models';
import { documentsOf, type IndexedDocument } from './documents';
import { embedPassages } from './embedPassages';
import { IndexingFailed } from './errors';
import { LANGUAGE_SAMPLE_CHARS, searchConfigFor } from './searchLanguage';

const INSERT_BATCH = 500;
const TITLE_LIMIT = 255;

/**
 * (Re)builds a source's index: `processing`, then `ready` with a true `chunk_count`, or `failed` with
 * a reason. Idempotent: the old passages (and a website's old pages) are replaced in one transaction,
 * so retrieval sees the old index or the new one, never half of either. Returns null when the source
 * was deleted meanwhile. Throws IndexingFailed for a failure worth retrying unless `finalAttempt`.
 * Once `ready`, the passages get their vectors where the chatbot's provider offers embeddings
 * (embedPassages.ts; never a reason to fail).
 */
export async function indexSource(
  deps: EndpointDeps & { config: Pick<Config, 'crawl'> },
  sourceId: number,
  { finalAttempt }: { finalAttempt: boolean },
): Promise<KnowledgeSource | null> {
  const { config, logger } = deps;
  const source = await KnowledgeSource.findByPk(sourceId);
  if (!source || source.parentId !== null) return null;
  if (source.status !== 'processing') await source.update({ status: 'processing' });
  try {
    const documents = await documentsOf(source, config);
    const indexed = await replaceIndex(source, documents);
    if (indexed?.status === 'ready') await embedPassages(deps, indexed);
    return indexed;
  } catch (error) {
    // Unexpected errors are logged in full but shown to the workspace only in general terms.
    if (!(error instanceof IndexingFailed)) logger.warn({ err: error, sourceId }, 'indexing failed');
    const failure = error instanceof IndexingFailed ? error : new IndexingFailed('Indexing failed because of a temporary error.', false);
    if (failure.permanent || finalAttempt) {
      await KnowledgeSource.update({ status: 'failed', failureReason: failure.reason.slice(0, 1000) }, { where: { id: sourceId } });
      return KnowledgeSource.findByPk(sourceId);
    }
    throw failure;
  }
}

async function replaceIndex(source: KnowledgeSource, documents: IndexedDocument[]): Promise<KnowledgeSource | null> {
  const searchConfig = await searchConfigFor(source.chatbotId, sampleOf(documents));
  return KnowledgeSource.sequelize!.transaction(async (transaction) => {
    // The row lock orders concurrent re-indexes and a concurrent delete of the same source.
    const locked = await KnowledgeSource.findByPk(source.id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!locked) return null;
    await KnowledgeSource.destroy({ where: { parentId: source.id }, transaction });
    await KnowledgeChunk.destroy({ where: { sourceId: source.id }, transaction });

    const owners: number[] = [];
    let total = 0;
    for (const document of documents) {
      const ownerId = document.page ? (await createPage(locked, document, searchConfig, transaction)).id : locked.id;
      owners.push(ownerId);
      total += document.chunks.length;
      await insertChunks(locked, ownerId, document, searchConfig, transaction);
    }
    if (!(await anySearchable(owners, transaction))) {
      throw new IndexingFailed(
        source.type === 'url' ? 'No page of the website had readable text.' : 'The document has no searchable words.',
        true,
      );
    }
    return locked.update({ status: 'ready', chunkCount: total, failureReason: null, indexedAt: new Date(), searchConfig }, { transaction });
  });
}

/** The start of the source's text, where its language is told (searchLanguage.ts). */
function sampleOf(documents: IndexedDocument[]): string {
  let sample = '';
  for (const chunk of documents.flatMap((document) => document.chunks)) {
    if (sample.length >= LANGUAGE_SAMPLE_CHARS) break;
    sample += `${chunk.content}\n`;
  }
  return sample;
}

function createPage(parent: KnowledgeSource, document: IndexedDocument, searchConfig: string, transaction: Transaction): Promise<KnowledgeSource> {
  const page = document.page!;
  return KnowledgeSource.create(
    {
      companyId: parent.companyId,
      chatbotId: parent.chatbotId,
      parentId: parent.id,
      type: 'page',
      title: page.title.slice(0, TITLE_LIMIT) || page.url.slice(0, TITLE_LIMIT),
      sourceUrl: page.url,
      content: page.text,
      status: 'ready',
      chunkCount: document.chunks.length,
      indexedAt: new Date(),
      searchConfig,
    },
    { transaction },
  );
}

async function insertChunks(source: KnowledgeSource, ownerId: number, document: IndexedDocument, searchConfig: string, transaction: Transaction): Promise<void> {
  const rows = document.chunks.map((chunk, position) => ({
    companyId: source.companyId,
    chatbotId: source.chatbotId,
    sourceId: ownerId,
    position,
    title: chunk.title,
    url: document.url,
    content: chunk.content,
    searchConfig,
  }));
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await KnowledgeChunk.bulkCreate(rows.slice(i, i + INSERT_BATCH), { transaction, returning: false, validate: false });
  }
}

/** True when at least one passage's text (not just its title) has a word Postgres can match, not only stop words or symbols. */
async function anySearchable(sourceIds: number[], transaction: Transaction): Promise<boolean> {
  if (!sourceIds.length) return false;
  const [row] = await KnowledgeChunk.sequelize!.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM knowledge_chunks WHERE source_id IN (:sourceIds) AND to_tsvector(search_config::regconfig, content) <> ''::tsvector) AS found`,
    { replacements: { sourceIds }, type: QueryTypes.SELECT, transaction },
  );
  return row?.found === true;
}
