import { z } from 'zod';
import { ROLE_NAMES } from '../../config/roles';
import { User } from '../models';
import { createUser, setUserSuspended } from '../domain/accounts/createUser';
import { changePassword } from '../domain/accounts/changePassword';
import { revokeSessions } from '../domain/accounts/tokens';
import { COMPANY_FLAG, defineCommand, type Flag } from './command';
import { findUser, findWorkspace } from './lookups';
import { newPassword } from './passwordInput';
import { presentV1User } from '../presenters/account';

const USER_FLAG: Flag = { type: 'string', help: "the user's id" };
const PASSWORD_FLAG: Flag = { type: 'string', help: 'the password, at least 8 characters (visible in the shell history: prefer --password-stdin)' };

export const userCreate = defineCommand({
  usage: 'user create --company ID --email E (--password P | --password-stdin) --name N --role owner|admin|agent|viewer',
  summary: "Creates a user in a workspace (an owner, admin or agent takes one of the plan's seats).",
  flags: {
    company: COMPANY_FLAG,
    email: { type: 'string', help: 'the sign-in address, unique across all workspaces' },
    password: PASSWORD_FLAG,
    name: { type: 'string', help: 'the name shown to colleagues and visitors' },
    role: { type: 'string', help: 'owner, admin, agent or viewer (read-only)' },
  },
  password: { flag: 'password' },
  schema: z.object({
    company: z.coerce.number().int().positive(),
    email: z.email().max(255),
    password: newPassword(),
    name: z.string().trim().min(1).max(120),
    role: z.enum(ROLE_NAMES),
  }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    return { user: presentV1User(await createUser(company, flags)) };
  },
});

export const userList = defineCommand({
  usage: 'user list --company ID',
  summary: "Lists a workspace's users, oldest first.",
  flags: { company: COMPANY_FLAG },
  schema: z.object({ company: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    const users = await User.findAll({ where: { companyId: company.id }, order: [['id', 'ASC']] });
    return { users: users.map(presentV1User) };
  },
});

export const userPassword = defineCommand({
  usage: 'user password --user ID (--password P | --password-stdin)',
  summary: "Sets a user's password and signs them out of the portal and the agent app (API tokens keep working).",
  flags: { user: USER_FLAG, password: PASSWORD_FLAG },
  password: { flag: 'password' },
  schema: z.object({ user: z.coerce.number().int().positive(), password: newPassword() }),
  async run(_ctx, flags) {
    const user = await findUser(flags.user);
    const { revokedSessions } = await changePassword(user, flags.password);
    return { user: presentV1User(user), revoked_sessions: revokedSessions };
  },
});

export const userRevokeSessions = defineCommand({
  usage: 'user revoke-sessions --user ID',
  summary: 'Signs a user out of the portal and the agent app everywhere, open realtime connections included (API tokens keep working).',
  flags: { user: USER_FLAG },
  schema: z.object({ user: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const user = await findUser(flags.user);
    return { user: presentV1User(user), revoked_sessions: await revokeSessions(user.id) };
  },
});

export const userSuspend = defineCommand({
  usage: 'user suspend --user ID',
  summary: 'Suspends a user: every token of theirs is refused (403) and they cannot sign in.',
  flags: { user: USER_FLAG },
  schema: z.object({ user: z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    const user = await findUser(flags.user);
    await setUserSuspended(user, true);
    return { user: presentV1User(user), suspended: true };
  },
});
