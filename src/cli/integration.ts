import { z } from 'zod';
import { connectIntegration, disconnectIntegration, type ConnectInput } from '../domain/integrations/connections';
import { COMPANY_FLAG, defineCommand } from './command';
import { findWorkspace } from './lookups';

const KINDS = ['shopify', 'stripe'] as const;
/** A bare host name: the Admin API lives at https://<store_domain>, so a scheme, port or path has no place here. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

const connectFlags = z
  .object({
    company: z.coerce.number().int().positive(),
    kind: z.enum(KINDS),
    // Pasted from a browser it often comes as https://shop.myshopify.com/; keep just the host.
    'store-domain': z
      .string()
      .trim()
      .toLowerCase()
      .transform((domain) => domain.replace(/^https?:\/\//, '').replace(/\/+$/, ''))
      .optional(),
    'access-token': z.string().trim().min(1).max(255).optional(),
    'secret-key': z.string().trim().min(1).max(255).optional(),
  })
  .superRefine((flags, issues) => {
    const need = (flag: 'store-domain' | 'access-token' | 'secret-key', ok: boolean, message: string) => {
      if (!ok) issues.addIssue({ code: 'custom', path: [flag], message });
    };
    const unused = (flag: 'store-domain' | 'access-token' | 'secret-key') =>
      need(flag, flags[flag] === undefined, `The --${flag} flag does not apply to --kind ${flags.kind}.`);
    if (flags.kind === 'shopify') {
      need('store-domain', Boolean(flags['store-domain']), 'The --store-domain flag is required for shopify (like your-store.myshopify.com).');
      if (flags['store-domain']) need('store-domain', HOSTNAME.test(flags['store-domain']), 'The store domain must be a host name like your-store.myshopify.com.');
      need('access-token', Boolean(flags['access-token']), 'The --access-token flag is required for shopify.');
      unused('secret-key');
    } else {
      need('secret-key', Boolean(flags['secret-key']), 'The --secret-key flag is required for stripe.');
      if (flags['secret-key']) need('secret-key', /^(sk|rk)_/.test(flags['secret-key']), 'The secret key must be a Stripe secret or restricted key (sk_... or rk_...).');
      unused('store-domain');
      unused('access-token');
    }
  });

export const integrationConnect = defineCommand({
  usage: 'integration connect --company ID (--kind shopify --store-domain D --access-token T | --kind stripe --secret-key K)',
  summary: 'Connects a Shopify store or Stripe account to a workspace; the secret is stored encrypted, never printed.',
  flags: {
    company: COMPANY_FLAG,
    kind: { type: 'string', help: 'shopify or stripe' },
    'store-domain': { type: 'string', help: 'shopify: the store host, like your-store.myshopify.com' },
    'access-token': { type: 'string', help: 'shopify: the Admin API access token' },
    'secret-key': { type: 'string', help: 'stripe: a secret or restricted key (sk_... or rk_...)' },
  },
  schema: connectFlags,
  async run(ctx, flags) {
    const company = await findWorkspace(flags.company);
    const input: ConnectInput =
      flags.kind === 'shopify'
        ? { kind: 'shopify', storeDomain: flags['store-domain']!, accessToken: flags['access-token']! }
        : { kind: 'stripe', secretKey: flags['secret-key']! };
    const { kind, settings } = await connectIntegration(company.id, input, ctx.secrets);
    return { integration: { kind, connected: true, settings } };
  },
});

export const integrationDisconnect = defineCommand({
  usage: 'integration disconnect --company ID --kind shopify|stripe',
  summary: 'Removes a connection and its stored secret; says whether there was one.',
  flags: { company: COMPANY_FLAG, kind: { type: 'string', help: 'shopify or stripe' } },
  schema: z.object({ company: z.coerce.number().int().positive(), kind: z.enum(KINDS) }),
  async run(_ctx, flags) {
    const company = await findWorkspace(flags.company);
    const removed = await disconnectIntegration(company.id, flags.kind);
    return { integration: { kind: flags.kind, connected: false }, removed };
  },
});
