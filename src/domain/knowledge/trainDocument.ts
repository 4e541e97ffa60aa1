import type { AppContext } from '../../context';
import type { Chatbot, KnowledgeSource } from '../../models';
import { saveSource, type NewSource } from './addSource';
import { IndexingFailed } from './errors';
import { indexSource } from './indexSource';

export interface Training {
  source: KnowledgeSource;
  /** Why the source is not `ready`; absent when training succeeded. */
  failure?: string;
}

/**
 * The v1 way: the document is saved, then trained inside the request. When training fails the
 * document stays saved: `failed` when its text cannot be indexed at all, or back to `pending` when
 * the failure was temporary, with training queued to run again in the background.
 */
export async function trainDocument(
  ctx: Pick<AppContext, 'config' | 'logger' | 'jobs' | 'secrets'>,
  chatbot: Chatbot,
  document: Extract<NewSource, { type: 'text' | 'qa' }>,
): Promise<Training> {
  const saved = await saveSource(chatbot, document, 'processing');
  try {
    const trained = (await indexSource(ctx, saved.id, { finalAttempt: false })) ?? saved;
    if (trained.status === 'ready') return { source: trained };
    return { source: trained, failure: `The document was saved but could not be trained: ${trained.failureReason ?? 'it has no searchable text.'}` };
  } catch (error) {
    if (!(error instanceof IndexingFailed)) throw error;
    await saved.update({ status: 'pending' });
    await ctx.jobs.enqueue('index-source', { sourceId: saved.id }).catch((queueError: unknown) => {
      ctx.logger.warn({ err: queueError, sourceId: saved.id }, 'could not queue a retry of training');
    });
    return { source: saved, failure: 'The document was saved but training failed; it will be retried in the background.' };
  }
}
