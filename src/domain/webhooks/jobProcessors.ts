import type { AppContext } from '../../context';
import type { JobProcessors } from '../../jobs/definitions';
import { deliverChain } from './deliver';
import { webhookRuntime, type WebhookRuntime } from './send';

/** What the webhook job does, with this process's address policy (WEBHOOK_ALLOW_PRIVATE) unless a test gives another. */
export function webhookJobProcessors(ctx: AppContext, options: Partial<WebhookRuntime> = {}): JobProcessors<'webhook-deliver'> {
  const runtime = webhookRuntime(ctx.config.webhooks.allowPrivate, options);
  return {
    'webhook-deliver': (chain) => deliverChain(chain, ctx.secrets, runtime),
  };
}
