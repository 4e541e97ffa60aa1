import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/events';
import { createWebhook, deleteWebhook, listWebhooks } from '../domain/webhooks/manage';
import { presentCreatedWebhook, presentWebhook } from '../presenters/webhook';
import { COMPANY_FLAG, defineCommand } from './command';
import { findWorkspace } from './lookups';

const company = z.coerce.number().int().positive();

/** `--events a,b`: comma-separated, each one of the event types (docs/webhooks.md). */
const events = z
  .string()
  .transform((list) => list.split(',').map((item) => item.trim()).filter(Boolean))
  .pipe(z.array(z.enum(WEBHOOK_EVENT_TYPES, { error: `Each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}.` })).min(1, 'Name at least one event.'));

export const webhookCreate = defineCommand({
  usage: 'webhook create --company ID --url URL --events E1,E2 [--description TEXT]',
  summary: 'Registers a webhook; prints its signing secret this once (stored encrypted).',
  flags: {
    company: COMPANY_FLAG,
    url: { type: 'string', help: 'the http(s) URL events are POSTed to' },
    events: { type: 'string', help: `comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}` },
    description: { type: 'string', help: 'a note on what the webhook is for' },
  },
  schema: z.object({
    company,
    url: z.url({ protocol: /^https?$/, error: 'The url must be an http or https URL.' }).max(2000),
    events,
    description: z.string().max(255).optional(),
  }),
  async run(ctx, flags) {
    const workspace = await findWorkspace(flags.company);
    const created = await createWebhook(workspace.id, flags, { secrets: ctx.secrets, allowPrivate: ctx.config.webhooks.allowPrivate });
    return { webhook: presentCreatedWebhook(created.webhook, created.secret) };
  },
});

export const webhookList = defineCommand({
  usage: 'webhook list --company ID',
  summary: "Lists a workspace's webhooks, oldest first (never their secrets).",
  flags: { company: COMPANY_FLAG },
  schema: z.object({ company }),
  async run(_ctx, flags) {
    const workspace = await findWorkspace(flags.company);
    return { webhooks: (await listWebhooks(workspace.id)).map(presentWebhook) };
  },
});

export const webhookDelete = defineCommand({
  usage: 'webhook delete --company ID --webhook ID',
  summary: 'Deletes a webhook with its delivery log.',
  flags: { company: COMPANY_FLAG, webhook: { type: 'string', help: "the webhook's id" } },
  schema: z.object({ company, webhook: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const workspace = await findWorkspace(flags.company);
    await deleteWebhook(workspace.id, flags.webhook);
    return { deleted: true };
  },
});
