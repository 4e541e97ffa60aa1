import { z } from 'zod';
import { createWebhook, deleteWebhook, findWebhook, listDeliveries, listWebhooks, sendTestEvent } from '../../domain/webhooks/manage';
import { webhookRuntime } from '../../domain/webhooks/send';
import { authOf } from '../../http/authenticate';
import { messageBody } from '../../openapi/responses/common';
import { createdWebhook, webhook, webhookDelivery, webhookEventType } from '../../openapi/responses/webhooks';
import { presentCreatedWebhook, presentDelivery, presentWebhook } from '../../presenters/webhook';
import { endpoint } from '../endpoint';

export const createWebhookBody = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'The url must be an http or https URL.' }).max(2000),
  events: z.array(webhookEventType).min(1, 'Choose at least one event.').max(10),
  description: z.string().max(255).nullable().optional(),
});

const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) });

const webhookId = z.coerce.number().int().positive().max(2 ** 31 - 1).describe('webhook id');

// Webhooks carry the workspace's conversations out of it: only those who manage the workspace handle them.
const portal = { surface: 'portal', auth: 'portal', ability: 'manage-workspace' } as const;

export const webhookEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/webhooks',
    summary: "The workspace's webhooks, oldest first (never their secrets)",
    responses: { 200: { description: 'The webhooks.', json: z.object({ data: z.array(webhook) }) } },
    handler: async (_input, req, res) => {
      res.json({ data: (await listWebhooks(authOf(req).company.id)).map(presentWebhook) });
    },
  }),
  endpoint({
    ...portal,
    method: 'post',
    path: '/api/portal/webhooks',
    summary: 'Register a webhook; its signing secret is in this answer only',
    description:
      'Events are `conversation.created`, `conversation.updated`, `message.created` and `lead.created` (docs/webhooks.md). A URL whose host is a loopback, private, link-local or metadata address is refused (a host name is checked again at every delivery, after DNS). At most 20 webhooks per workspace.',
    body: { schema: createWebhookBody, examples: [{ url: 'https://example.com/parley/webhook', events: ['message.created', 'conversation.updated'], description: 'CRM sync' }] },
    responses: {
      201: { description: 'The webhook with its secret, shown this once.', json: z.object({ webhook: createdWebhook }) },
      422: 'A URL that is not http(s) or points at a refused address, an unknown event, or the workspace already has 20 webhooks.',
    },
    handler: async ({ ctx, body }, req, res) => {
      const input = body();
      const created = await createWebhook(authOf(req).company.id, input, { secrets: ctx.secrets, allowPrivate: ctx.config.webhooks.allowPrivate });
      res.status(201).json({ webhook: presentCreatedWebhook(created.webhook, created.secret) });
    },
  }),
  endpoint({
    ...portal,
    method: 'delete',
    path: '/api/portal/webhooks/{webhook}',
    summary: 'Delete a webhook and its delivery log; its undelivered events are dropped',
    params: { webhook: webhookId },
    responses: { 200: { description: 'Deleted.', json: messageBody } },
    handler: async (_input, req, res) => {
      await deleteWebhook(authOf(req).company.id, req.params.webhook);
      res.json({ message: 'The webhook was deleted.' });
    },
  }),
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/webhooks/{webhook}/deliveries',
    summary: "The webhook's delivery log, newest first",
    description: '`limit` 1..100, default 50.',
    params: { webhook: webhookId },
    query: { schema: deliveriesQuery, examples: [{ limit: '20' }] },
    responses: { 200: { description: 'The deliveries.', json: z.object({ data: z.array(webhookDelivery) }) } },
    handler: async ({ query }, req, res) => {
      const found = await findWebhook(authOf(req).company.id, req.params.webhook);
      res.json({ data: (await listDeliveries(found, query().limit)).map(presentDelivery) });
    },
  }),
  endpoint({
    ...portal,
    method: 'post',
    path: '/api/portal/webhooks/{webhook}/test',
    summary: 'Send a signed `webhook.test` event now and answer with its delivery',
    description: 'One attempt, within the request (at most 10 s), never retried, kept in the delivery log; it does not count toward deactivation. `status` is `delivered` or `failed`.',
    params: { webhook: webhookId },
    limit: { name: 'webhook-test', points: 10, seconds: 60, by: 'user' },
    responses: { 200: { description: 'The delivery as logged.', json: z.object({ delivery: webhookDelivery }) } },
    handler: async ({ ctx }, req, res) => {
      const found = await findWebhook(authOf(req).company.id, req.params.webhook);
      const { delivery } = await sendTestEvent(found, ctx.secrets, webhookRuntime(ctx.config.webhooks.allowPrivate));
      res.json({ delivery: presentDelivery(delivery) });
    },
  }),
];
