import { UnrecoverableError } from 'bullmq';
import { Op } from 'sequelize';
import type { AppContext } from '../context';
import { indexSource } from '../domain/knowledge/indexSource';
import { deliverPush } from '../domain/push/deliver';
import { fanOutPush } from '../domain/push/fanout';
import { pushRuntime, type PushRuntimeOptions } from '../domain/push/runtime';
import { KnowledgeSource } from '../models';
import { countedRuns } from './countedRuns';
import type { JobProcessors } from './definitions';

export interface ProcessorOptions {
  /** Push delivery overrides (tests: a clock, the certificate of a local push service). */
  push?: PushRuntimeOptions;
}

/** What each job kind does: a thin hop into the domain, shared by BullMQ workers and the in-process queue; every run is counted. */
export function jobProcessors(ctx: AppContext, options: ProcessorOptions = {}): JobProcessors {
  const push = pushRuntime(ctx, options.push);
  return countedRuns(ctx.metrics, {
    'push-fanout': async (job) => void (await fanOutPush(ctx, job, push)),
    'push-deliver': async (job) => void (await deliverPush(ctx, job, push)),
    'index-source': async ({ sourceId }, { finalAttempt }) => {
      const source = await indexSource(ctx, sourceId, { finalAttempt });
      // Recorded on the source already; this tells BullMQ not to retry and keeps the outcome visible in its metrics.
      if (source?.status === 'failed' && !finalAttempt) throw new UnrecoverableError(source.failureReason ?? 'indexing failed');
    },
  });
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
