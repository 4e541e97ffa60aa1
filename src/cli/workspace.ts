import { z } from 'zod';
import { PLAN_NAMES } from '../../config/plans';
import { Company } from '../models';
import { brandOf, updateBrand } from '../domain/accounts/brand';
import { createWorkspace, setWorkspaceSuspended } from '../domain/accounts/createWorkspace';
import { COMPANY_FLAG, defineCommand } from './command';
import { findWorkspace } from './lookups';
import { newPassword } from './passwordInput';
import { presentV1Company, presentV1User } from '../presenters/account';

export const workspaceCreate = defineCommand({
  usage:
    'workspace create --name N [--plan free|starter|pro|enterprise] [--portal] [--owner-email E (--owner-password P | --password-stdin) [--owner-name NAME]]',
  summary: 'Creates a workspace, and its first owner when --owner-email is given.',
  flags: {
    name: { type: 'string', help: "the workspace's name (its slug is made from it)" },
    plan: { type: 'string', help: 'free (the default), starter, pro or enterprise' },
    portal: { type: 'boolean', help: 'switches the white-label portal on' },
    'owner-email': { type: 'string', help: "the first owner's sign-in address" },
    'owner-password': { type: 'string', help: "the first owner's password, at least 8 characters (prefer --password-stdin)" },
    'owner-name': { type: 'string', help: "the first owner's name (default: the part of the address before @)" },
  },
  password: { flag: 'owner-password', wanted: (flags) => flags['owner-email'] !== undefined },
  schema: z
    .object({
      name: z.string().trim().min(1).max(120),
      plan: z.enum(PLAN_NAMES).default('free'),
      portal: z.boolean().default(false),
      'owner-email': z.email().max(255).optional(),
      'owner-password': newPassword().optional(),
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

const companyFlag = { flags: { company: COMPANY_FLAG }, schema: z.object({ company: z.coerce.number().int().positive() }) };

export const workspaceList = defineCommand({
  usage: 'workspace list',
  summary: 'Lists every workspace, oldest first.',
  flags: {},
  schema: z.object({}),
  async run() {
    const companies = await Company.findAll({ order: [['id', 'ASC']] });
    return { workspaces: companies.map(presentV1Company) };
  },
});

const suspension = (suspended: boolean) =>
  defineCommand({
    usage: `workspace ${suspended ? 'suspend' : 'unsuspend'} --company ID`,
    summary: suspended
      ? "Suspends a workspace: its users' tokens and widgets are refused until it is unsuspended."
      : "Lifts a workspace's suspension.",
    ...companyFlag,
    async run(_ctx, flags) {
      const company = await findWorkspace(flags.company);
      await setWorkspaceSuspended(company, suspended);
      return { company: presentV1Company(company), suspended };
    },
  });

export const workspaceSuspend = suspension(true);
export const workspaceUnsuspend = suspension(false);

export const workspaceBrand = defineCommand({
  usage: 'workspace brand --company ID [--name N] [--powered-by T] [--logo-url URL]',
  summary: "Sets the white-label brand portals and the widget show; an empty name or logo restores Parley's default, an empty powered-by hides the line.",
  flags: {
    company: COMPANY_FLAG,
    name: { type: 'string', help: 'the brand name' },
    'powered-by': { type: 'string', help: 'the "powered by" line (empty: hidden, white-label)' },
    'logo-url': { type: 'string', help: 'an http(s) URL of the logo' },
  },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    name: z.string().max(120).optional(),
    'powered-by': z.string().max(120).optional(),
    'logo-url': z.union([z.literal(''), z.url({ protocol: /^https?$/ }).max(2048)]).optional(),
  }),
  async run(ctx, flags) {
    const company = await findWorkspace(flags.company);
    await updateBrand(company, { name: flags.name, powered_by: flags['powered-by'], logo_url: flags['logo-url'] });
    return { company: presentV1Company(company), brand: brandOf(company, ctx.config.appUrl) };
  },
});
