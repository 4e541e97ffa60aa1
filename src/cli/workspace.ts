import { z } from 'zod';
import { PLAN_NAMES } from '../../config/plans';
import { Company } from '../models';
import { brandOf, updateBrand } from '../domain/accounts/brand';
import { createWorkspace, setWorkspaceSuspended } from '../domain/accounts/createWorkspace';
import { notFound } from '../errors';
import { defineCommand } from './command';
import { presentV1Company, presentV1User } from '../presenters/account';

export const workspaceCreate = defineCommand({
  usage: 'workspace create --name N [--plan free|starter|pro|enterprise] [--portal] [--owner-email E --owner-password P --owner-name NAME]',
  flags: { name: { type: 'string' }, plan: { type: 'string' }, portal: { type: 'boolean' }, 'owner-email': { type: 'string' }, 'owner-password': { type: 'string' }, 'owner-name': { type: 'string' } },
  schema: z
    .object({
      name: z.string().trim().min(1).max(120),
      plan: z.enum(PLAN_NAMES).default('free'),
      portal: z.boolean().default(false),
      'owner-email': z.email().max(255).optional(),
      'owner-password': z.string().min(8).optional(),
      'owner-name': z.string().trim().min(1).max(120).optional(),
    })
    .refine((f) => !f['owner-email'] === !f['owner-password'], { message: '--owner-email and --owner-password go together', path: ['owner-password'] }),
  async run(_ctx, flags) {
    const email = flags['owner-email'];
    const password = flags['owner-password'];
    const { company, owner } = await createWorkspace({
      name: flags.name,
      plan: flags.plan,
      portalEnabled: flags.portal,
      owner: email && password ? { email, password, name: flags['owner-name'] ?? email.split('@')[0]! } : undefined,
    });
    return { company: presentV1Company(company), owner: owner ? presentV1User(owner) : null };
  },
});

const companyFlag = { flags: { company: { type: 'string' as const } }, schema: z.object({ company: z.coerce.number().int().positive() }) };

const suspension = (suspended: boolean) =>
  defineCommand({
    usage: `workspace ${suspended ? 'suspend' : 'unsuspend'} --company ID`,
    ...companyFlag,
    async run(_ctx, flags) {
      const company = await Company.findByPk(flags.company);
      if (!company) throw notFound('Workspace');
      await setWorkspaceSuspended(company, suspended);
      return { company: presentV1Company(company), suspended };
    },
  });

export const workspaceSuspend = suspension(true);
export const workspaceUnsuspend = suspension(false);

export const workspaceBrand = defineCommand({
  usage: 'workspace brand --company ID [--name N] [--powered-by T] [--logo-url URL]  (an empty value restores the default)',
  flags: { company: { type: 'string' }, name: { type: 'string' }, 'powered-by': { type: 'string' }, 'logo-url': { type: 'string' } },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().max(120).optional(),
    'powered-by': z.string().max(120).optional(),
    'logo-url': z.union([z.literal(''), z.url({ protocol: /^https?$/ }).max(2048)]).optional(),
  }),
  async run(ctx, flags) {
    const company = await Company.findByPk(flags.company);
    if (!company) throw notFound('Workspace');
    await updateBrand(company, { name: flags.name, powered_by: flags['powered-by'], logo_url: flags['logo-url'] });
    return { company: presentV1Company(company), brand: brandOf(company, ctx.config.appUrl) };
  },
});
