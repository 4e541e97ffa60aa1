import type { AppContext } from '../../context';
import type { JobProcessors } from '../../jobs/definitions';
import { deliverPush } from './deliver';
import { fanOutPush } from './fanout';
import type { PushJobName } from './jobs';
import { pushRuntime, type PushRuntimeOptions } from './runtime';

/** What the push jobs do; one push runtime (throttle, outbound policy, HTTPS agent) serves both. */
export function pushJobProcessors(ctx: AppContext, options?: PushRuntimeOptions): JobProcessors<PushJobName> {
  const push = pushRuntime(ctx, options);
  return {
    'push-fanout': async (job) => void (await fanOutPush(ctx, job, push)),
    'push-deliver': async (job) => void (await deliverPush(ctx, job, push)),
  };
}
