import { z } from 'zod';
import { createTag } from '../domain/catalogue/createTag';
import { createCannedReply } from '../domain/catalogue/createCannedReply';
import { Company } from '../models';
import { notFound } from '../errors';
import { defineCommand } from './command';

async function workspace(id: number): Promise<Company> {
  const company = await Company.findByPk(id);
  if (!company) throw notFound('Workspace');
  return company;
}

export const tagCreate = defineCommand({
  usage: 'tag create --company ID --name N [--color #hex]',
  flags: { company: { type: 'string' }, name: { type: 'string' }, color: { type: 'string' } },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().trim().min(1).max(60),
    color: z.string().regex(/^#[0-9a-fA-F]{3,8}$/, 'The color must be a hex colour like #22c55e.').optional(),
  }),
  async run(_ctx, flags) {
    const company = await workspace(flags.company);
    const tag = await createTag(company.id, { name: flags.name, color: flags.color });
    return { tag: { id: tag.id, name: tag.name, color: tag.color } };
  },
});

export const cannedCreate = defineCommand({
  usage: 'canned create --company ID --title T --shortcut S --body B [--user ID]',
  flags: { company: { type: 'string' }, title: { type: 'string' }, shortcut: { type: 'string' }, body: { type: 'string' }, user: { type: 'string' } },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    title: z.string().trim().min(1).max(120),
    shortcut: z.string().trim().min(1).max(40),
    body: z.string().trim().min(1).max(4000),
    user: z.coerce.number().int().positive().optional(),
  }),
  async run(_ctx, flags) {
    const company = await workspace(flags.company);
    const canned = await createCannedReply(company.id, { title: flags.title, shortcut: flags.shortcut, body: flags.body, userId: flags.user });
    return { canned: { id: canned.id, title: canned.title, shortcut: canned.shortcut, body: canned.body, shared: canned.userId === null } };
  },
});
