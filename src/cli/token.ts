import { z } from 'zod';
import { TOKEN_ABILITIES } from '../../config/roles';
import { User } from '../models';
import { issueToken, revokeToken } from '../domain/accounts/tokens';
import { findUserByEmail } from '../domain/accounts/findUserByEmail';
import { notFound } from '../errors';
import { defineCommand } from './command';

export const tokenCreate = defineCommand({
  usage: 'token create --user ID_OR_EMAIL [--name N] [--ability api|portal|agent]',
  summary: 'Issues a bearer token for a user, valid 30 days; printed this once (only its hash is stored).',
  flags: {
    user: { type: 'string', help: "the user's id or email address" },
    name: { type: 'string', help: 'a label for the token' },
    ability: { type: 'string', help: 'api (the default: REST API v1), portal or agent' },
  },
  schema: z.object({
    user: z.string().trim().min(1),
    name: z.string().trim().min(1).max(120).optional(),
    ability: z.enum(TOKEN_ABILITIES).default('api'),
  }),
  async run(_ctx, flags) {
    const user = /^\d+$/.test(flags.user)
      ? await User.findByPk(Number(flags.user))
      : await findUserByEmail(flags.user);
    if (!user) throw notFound('User');
    const { plain, token } = await issueToken(user, flags.ability, { name: flags.name });
    return { token: plain, expires_at: token.expiresAt.toISOString() };
  },
});

export const tokenRevoke = defineCommand({
  usage: 'token revoke --token-id ID',
  summary: 'Revokes a token at once (the part of the token before the |).',
  flags: { 'token-id': { type: 'string', help: "the token's id" } },
  schema: z.object({ 'token-id': z.coerce.number().int().positive() }),
  async run(_ctx, flags) {
    if (!(await revokeToken(flags['token-id']))) throw notFound('Token');
    return { revoked: true };
  },
});
