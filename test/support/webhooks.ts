import { JOB_KINDS } from '../../src/boot/jobs';
import { webhookJobProcessors } from '../../src/domain/webhooks/jobProcessors';
import { startDeliverySweep } from '../../src/domain/webhooks/sweep';
import { startBullWorkers } from '../../src/jobs/bullQueue';
import { REDIS_URL, TEST_REDIS_PREFIX } from './env';
import * as make from './factories';
import { server } from './hooks';
import { request } from './http';
import type { WebhookReceiver } from './webhookReceiver';

/**
 * What the worker does in cluster mode, for the test server (which runs no jobs itself): a BullMQ
 * worker for `webhook-deliver` and the delivery sweep, here every 100 ms so a test that moves a
 * delivery's `next_attempt_at` sees it taken up at once.
 */
export async function startWebhookWorker(): Promise<{ close(): Promise<void> }> {
  const ctx = server().ctx;
  const workers = await startBullWorkers(REDIS_URL, TEST_REDIS_PREFIX, JOB_KINDS, { 'webhook-deliver': webhookJobProcessors(ctx)['webhook-deliver'] }, ctx.logger);
  const sweep = startDeliverySweep(ctx, 100);
  return {
    async close() {
      await sweep.close();
      await workers.close();
    },
  };
}

/** A workspace with a portal token (webhooks), an api token (v1) and a chatbot answered by the fake LLM. */
export async function webhookTenant() {
  const { company, owner } = await make.workspace({ portal: true, plan: 'pro' });
  const bot = await make.chatbot(company);
  await make.providerKey(company, bot.provider);
  return { company, owner, bot, portal: await make.token(owner, 'portal'), api: await make.token(owner, 'api') };
}

/** Registers a webhook through the portal, pointed at the receiver's path `name`, and tells the receiver its secret. */
export async function registerHook(tenant: { portal: string }, receiver: WebhookReceiver, name: string, events: string[]) {
  const reply = await request('POST', '/api/portal/webhooks', { token: tenant.portal, body: { url: receiver.url(name), events } });
  if (reply.status !== 201) throw new Error(`webhook not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  receiver.trust(name, reply.body.webhook.secret);
  return reply.body.webhook as { id: number; secret: string; url: string; events: string[] };
}

/** A v1 visitor message (the fake LLM answers), in a new conversation unless one is named. */
export async function v1Send(tenant: { api: string; bot: { publicKey: string } }, message: string, visitorId: string, conversationId?: string): Promise<string> {
  const reply = await request('POST', `/api/v1/chatbots/${tenant.bot.publicKey}/messages`, {
    token: tenant.api,
    body: { message, visitor_id: visitorId, ...(conversationId && { conversation_id: conversationId }) },
  });
  if (reply.status !== 200) throw new Error(`v1 send failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.conversation_id as string;
}
