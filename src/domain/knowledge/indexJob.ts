import { UnrecoverableError } from 'bullmq';
import { Op } from 'sequelize';
import type { AppContext } from '../../context';
import type { JobKinds, JobProcessors } from '../../jobs/definitions';
import { KnowledgeSource } from '../../models';
import { indexSource } from './indexSource';

declare module '../../jobs/definitions' {
  interface JobPayloads {
    /** (Re)build a knowledge source's passages: chunk text / Q&A, or crawl a URL source's site. */
    'index-source': { sourceId: number };
  }
}

export const INDEX_JOB_KINDS: JobKinds<'index-source'> = {
  'index-source': { policy: { attempts: 5, backoffMs: 2_000, concurrency: 2 }, idOf: ({ sourceId }) => `index-source-${sourceId}` },
};

export function indexJobProcessors(ctx: AppContext): JobProcessors<'index-source'> {
  return {
    'index-source': async ({ sourceId }, { finalAttempt }) => {
      const source = await indexSource(ctx, sourceId, { finalAttempt });
      // Recorded on the source already; this tells BullMQ not to retry and keeps the outcome visible in its metrics.
      if (source?.status === 'failed' && !finalAttempt) throw new UnrecoverableError(source.failureReason ?? 'indexing failed');
    },
  };
}

/**
 * Sources still waiting when a process starts (the in-process queue lost its jobs in a restart, or a
 * crash fell between saving a source and queueing it) are queued again; job ids make this harmless.
 */
export async function requeuePendingSources(ctx: AppContext): Promise<number> {
  const sources = await KnowledgeSource.findAll({
    attributes: ['id'],
    where: { parentId: null, status: { [Op.in]: ['pending', 'processing'] } },
  });
  for (const { id } of sources) await ctx.jobs.enqueue('index-source', { sourceId: id });
  return sources.length;
}
