import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../config/providers';
import { Company } from '../models';
import { createChatbot } from '../domain/chatbots/createChatbot';
import { notFound } from '../errors';
import { defineCommand } from './command';
import { presentCreatedChatbot } from '../presenters/chatbot';

export const chatbotCreate = defineCommand({
  usage: 'chatbot create --company ID --name N [--provider openai] [--model M] [--live-visitors] [--inactive]',
  flags: { company: { type: 'string' }, name: { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' }, 'live-visitors': { type: 'boolean' }, inactive: { type: 'boolean' } },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().trim().min(1).max(120),
    provider: z.enum(PROVIDER_SLUGS).default('openai'),
    model: z.string().trim().min(1).max(120).optional(),
    'live-visitors': z.boolean().default(false),
    inactive: z.boolean().default(false),
  }),
  async run(ctx, flags) {
    const company = await Company.findByPk(flags.company);
    if (!company) throw notFound('Workspace');
    const { chatbot, identitySecret } = await createChatbot(
      company,
      { name: flags.name, provider: flags.provider, model: flags.model, liveVisitors: flags['live-visitors'], isActive: !flags.inactive },
      ctx.secrets,
    );
    return { chatbot: presentCreatedChatbot(chatbot, identitySecret) };
  },
});
