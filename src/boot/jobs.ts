import type { AppContext } from '../context';
import { INDEX_JOB_KINDS, indexJobProcessors } from '../domain/knowledge/indexJob';
import { PUSH_JOB_KINDS } from '../domain/push/jobs';
import { pushJobProcessors } from '../domain/push/jobProcessors';
import { WEBHOOK_JOB_KINDS } from '../domain/webhooks/jobs';
import { webhookJobProcessors } from '../domain/webhooks/jobProcessors';
import type { WebhookRuntime } from '../domain/webhooks/send';
import type { PushRuntimeOptions } from '../domain/push/runtime';
import { countedRuns } from '../jobs/countedRuns';
import type { JobKinds, JobProcessors } from '../jobs/definitions';

/**
 * Every job kind, as its domain module declares it. Typed over every kind the domain adds to
 * `JobPayloads`, so a kind declared but left out of this list does not compile.
 */
export const JOB_KINDS: JobKinds = { ...INDEX_JOB_KINDS, ...PUSH_JOB_KINDS, ...WEBHOOK_JOB_KINDS };

export interface ProcessorOptions {
  /** Push delivery overrides (tests: a clock, the certificate of a local push service). */
  push?: PushRuntimeOptions;
  /** Webhook delivery overrides (tests: the address policy, a shorter time limit). */
  webhooks?: Partial<WebhookRuntime>;
}

/** What each job kind does, shared by BullMQ workers and the in-process queue; every run is counted. */
export function jobProcessors(ctx: AppContext, options: ProcessorOptions = {}): JobProcessors {
  return countedRuns(ctx.metrics, { ...indexJobProcessors(ctx), ...pushJobProcessors(ctx, options.push), ...webhookJobProcessors(ctx, options.webhooks) });
}
