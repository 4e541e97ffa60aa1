import { z } from 'zod';
import { createTag } from '../domain/catalogue/createTag';
import { createCannedReply } from '../domain/catalogue/createCannedReply';
import { COMPANY_FLAG, defineCommand } from './command';
import { findWorkspace } from './lookups';

export const tagCreate = defineCommand({
  usage: 'tag create --company ID --name N [--color #hex]',
  summary: 'Creates a conversation tag in a workspace.',
  flags: {
    company: COMPANY_FLAG,
    name: { type: 'string', help: "the tag's name" },
    color: { type: 'string', help: 'a hex colour like #22c55e (default: a stored default)' },
  },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().trim().min(1).max(60),
    color: z.string().regex(/^#[0-9a-fA-F]{3,8}$/, 'The color must be a hex colour like #22c55e.').optional(),
  }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    const tag = await createTag(company.id, { name: flags.name, color: flags.color });
    return { tag: { id: tag.id, name: tag.name, color: tag.color } };
  },
});

export const cannedCreate = defineCommand({
  usage: 'canned create --company ID --title T --shortcut S --body B [--user ID]',
  summary: "Creates a canned reply: shared by the workspace, or one user's own with --user.",
  flags: {
    company: COMPANY_FLAG,
    title: { type: 'string', help: "the reply's title" },
    shortcut: { type: 'string', help: 'what an agent types to insert it' },
    body: { type: 'string', help: 'the text inserted' },
    user: { type: 'string', help: 'the id of the user it belongs to (default: shared)' },
  },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    title: z.string().trim().min(1).max(120),
    shortcut: z.string().trim().min(1).max(40),
    body: z.string().trim().min(1).max(4000),
    user: z.coerce.number().int().positive().optional(),
  }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    const canned = await createCannedReply(company.id, { title: flags.title, shortcut: flags.shortcut, body: flags.body, userId: flags.user });
    return { canned: { id: canned.id, title: canned.title, shortcut: canned.shortcut, body: canned.body, shared: canned.userId === null } };
  },
});
