import { z } from 'zod';
import { ROLE_NAMES } from '../../config/roles';
import { Company, User } from '../models';
import { createUser, setUserSuspended } from '../domain/accounts/createUser';
import { notFound } from '../errors';
import { defineCommand } from './command';
import { presentV1User } from '../presenters/account';

export const userCreate = defineCommand({
  usage: 'user create --company ID --email E --password P --name N --role owner|admin|agent|viewer',
  flags: { company: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    email: z.email().max(255),
    password: z.string().min(8),
    name: z.string().trim().min(1).max(120),
    role: z.enum(ROLE_NAMES),
  }),
  async run(_ctx, flags) {
    const company = await Company.findByPk(flags.company);
    if (!company) throw notFound('Workspace');
    return { user: presentV1User(await createUser(company, flags)) };
  },
});

export const userSuspend = defineCommand({
  usage: 'user suspend --user ID',
  flags: { user: { type: 'string' } },
  schema: z.object({ user: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const user = await User.findByPk(flags.user);
    if (!user) throw notFound('User');
    await setUserSuspended(user, true);
    return { user: presentV1User(user), suspended: true };
  },
});
