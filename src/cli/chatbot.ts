import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../config/providers';
import { createChatbot } from '../domain/chatbots/createChatbot';
import { COMPANY_FLAG, defineCommand } from './command';
import { findWorkspace } from './lookups';
import { presentCreatedChatbot, presentV1ChatbotListItem } from '../presenters/chatbot';
import { listChatbots } from '../domain/chatbots/findChatbot';

export const chatbotCreate = defineCommand({
  usage: 'chatbot create --company ID --name N [--provider openai] [--model M] [--live-visitors] [--inactive]',
  summary: 'Creates a chatbot and prints its identity secret, shown this once (it is stored encrypted).',
  flags: {
    company: COMPANY_FLAG,
    name: { type: 'string', help: "the chatbot's name" },
    provider: { type: 'string', help: `the AI provider: ${PROVIDER_SLUGS.join(', ')} (default openai)` },
    model: { type: 'string', help: "the provider's model (default: the provider's usual one)" },
    'live-visitors': { type: 'boolean', help: 'shows agents the visitors browsing the site' },
    inactive: { type: 'boolean', help: 'creates it switched off (the widget does not load)' },
  },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().trim().min(1).max(120),
    provider: z.enum(PROVIDER_SLUGS).default('openai'),
    model: z.string().trim().min(1).max(120).optional(),
    'live-visitors': z.boolean().default(false),
    inactive: z.boolean().default(false),
  }),
  async run(ctx, flags) {
    const company = await findWorkspace(flags.company);
    const { chatbot, identitySecret } = await createChatbot(
      company,
      { name: flags.name, provider: flags.provider, model: flags.model, liveVisitors: flags['live-visitors'], isActive: !flags.inactive },
      ctx.secrets,
    );
    return { chatbot: presentCreatedChatbot(chatbot, identitySecret) };
  },
});

export const chatbotList = defineCommand({
  usage: 'chatbot list --company ID',
  summary: "Lists a workspace's chatbots, oldest first (never their identity secrets).",
  flags: { company: COMPANY_FLAG },
  schema: z.object({ company: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    return { chatbots: (await listChatbots(company.id)).map(presentV1ChatbotListItem) };
  },
});
