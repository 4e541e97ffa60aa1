import { Integration, type IntegrationKind } from '../../models';
import type { SecretBox } from '../../security/encryption';

export interface ShopifyConnection {
  kind: 'shopify';
  storeDomain: string;
  accessToken: string;
  updatedAt: Date;
}

export interface StripeConnection {
  kind: 'stripe';
  secretKey: string;
  updatedAt: Date;
}

export type ConnectInput = { kind: 'shopify'; storeDomain: string; accessToken: string } | { kind: 'stripe'; secretKey: string };

/** What may be shown about a connection: its kind and settings, never the secret. */
export interface ConnectionSummary {
  kind: IntegrationKind;
  settings: Record<string, unknown>;
}

/** Stores (or replaces) a workspace's connection to one service, the secret sealed under APP_KEY. */
export async function connectIntegration(companyId: number, input: ConnectInput, secrets: SecretBox): Promise<ConnectionSummary> {
  const settings = input.kind === 'shopify' ? { store_domain: input.storeDomain } : {};
  const secret = input.kind === 'shopify' ? input.accessToken : input.secretKey;
  await Integration.sequelize!.query(
    `INSERT INTO integrations (company_id, kind, settings, secret_encrypted) VALUES (:companyId, :kind, :settings, :sealed)
     ON CONFLICT (company_id, kind) DO UPDATE SET settings = EXCLUDED.settings, secret_encrypted = EXCLUDED.secret_encrypted, updated_at = now()`,
    { replacements: { companyId, kind: input.kind, settings: JSON.stringify(settings), sealed: secrets.seal(secret) } },
  );
  return { kind: input.kind, settings };
}

/** Removes a workspace's connection; false when there was none (disconnecting is idempotent). */
export async function disconnectIntegration(companyId: number, kind: IntegrationKind): Promise<boolean> {
  return (await Integration.destroy({ where: { companyId, kind } })) > 0;
}

export interface Connections {
  shopify: ShopifyConnection | null;
  stripe: StripeConnection | null;
}

/**
 * The workspace's connections with their secrets opened. A secret that no longer opens (APP_KEY
 * changed) throws when used, not here, so the other service still answers.
 */
export async function loadConnections(companyId: number, secrets: SecretBox, kinds: IntegrationKind[] = ['shopify', 'stripe']): Promise<Connections> {
  const rows = await Integration.findAll({ where: { companyId, kind: kinds } });
  const row = (kind: IntegrationKind) => rows.find((candidate) => candidate.kind === kind);
  const shopify = row('shopify');
  const stripe = row('stripe');
  return {
    shopify: shopify
      ? {
          kind: 'shopify',
          storeDomain: String(shopify.settings.store_domain ?? ''),
          get accessToken() {
            return secrets.open(shopify.secretEncrypted);
          },
          updatedAt: shopify.updatedAt,
        }
      : null,
    stripe: stripe
      ? {
          kind: 'stripe',
          get secretKey() {
            return secrets.open(stripe.secretEncrypted);
          },
          updatedAt: stripe.updatedAt,
        }
      : null,
  };
}
