import { UnrecoverableError } from 'bullmq';
import type { Metrics } from '../ops/metrics';
import type { JobName, JobProcessor, JobProcessors } from './definitions';

/**
 * The processors, each run counted by outcome in the process's metrics. Both queues (BullMQ and the
 * in-process one) call processors the same way, so counting here counts every run, wherever it runs.
 */
export function countedRuns(metrics: Pick<Metrics, 'jobRun'>, processors: JobProcessors): JobProcessors {
  const counted =
    <N extends JobName>(name: N, process: JobProcessor<N>): JobProcessor<N> =>
    async (payload, attempt) => {
      try {
        await process(payload, attempt);
      } catch (error) {
        // Both queues stop retrying after the last attempt or an UnrecoverableError.
        metrics.jobRun(name, attempt.finalAttempt || error instanceof UnrecoverableError ? 'failed' : 'retried');
        throw error;
      }
      metrics.jobRun(name, 'completed');
    };
  const names = Object.keys(processors) as JobName[];
  return Object.fromEntries(names.map((name) => [name, counted(name, processors[name] as JobProcessor<JobName>)])) as JobProcessors;
}
