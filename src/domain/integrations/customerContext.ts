import type { AppContext } from '../../context';
import type { IntegrationKind } from '../../models';
import { findConversation } from '../conversations/findConversation';
import { loadConnections } from './connections';
import { INTEGRATION_TIMEOUT_MS, IntegrationUnavailable } from './http';
import { findShopifyOrders, type ShopifyOrder } from './shopify';
import { findStripeCustomer, listStripeSubscriptions, type StripeCustomer, type StripeSubscription } from './stripe';

export type StripeLookup = { found: false } | { found: true; customer: StripeCustomer; subscriptions: StripeSubscription[] };

/** What the commerce services know about a visitor. `failed`: connected, but the service did not answer in time or at all. */
export interface CustomerContext {
  email: string | null;
  shopify: { connected: boolean; failed: boolean; storeDomain: string | null; orders: ShopifyOrder[] };
  stripe: { connected: boolean; failed: boolean; lookup: StripeLookup | null };
}

/** The email the visitor gave on this workspace's conversation (null when none yet); 404 for a missing or foreign conversation. */
export async function visitorEmailOf(companyId: number, publicId: string): Promise<string | null> {
  const conversation = await findConversation(companyId, publicId, { attributes: ['id', 'visitorEmail'] });
  return conversation.visitorEmail?.trim() || null;
}

/**
 * Looks the email up in both services at once, each within its own deadline. A service that fails
 * is reported as failed (and logged) so the other's answer still reaches the agent.
 */
export async function customerContext(ctx: AppContext, companyId: number, email: string | null): Promise<CustomerContext> {
  const { shopify, stripe } = await loadConnections(companyId, ctx.secrets);
  const [orders, lookup] = await Promise.all([
    shopify && email
      ? attempt(ctx, companyId, 'shopify', (signal) => findShopifyOrders(ctx.config, shopify, email, signal))
      : { failed: false, value: [] },
    stripe && email
      ? attempt(ctx, companyId, 'stripe', async (signal): Promise<StripeLookup> => {
          const customer = await findStripeCustomer(ctx.config, stripe, email, signal);
          if (!customer) return { found: false };
          return { found: true, customer, subscriptions: await listStripeSubscriptions(ctx.config, stripe, customer.id, signal) };
        })
      : { failed: false, value: null },
  ]);
  return {
    email,
    shopify: { connected: Boolean(shopify), failed: orders.failed, storeDomain: shopify?.storeDomain ?? null, orders: orders.value ?? [] },
    stripe: { connected: Boolean(stripe), failed: lookup.failed, lookup: lookup.value ?? null },
  };
}

async function attempt<T>(
  ctx: AppContext,
  companyId: number,
  service: IntegrationKind,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ failed: boolean; value: T | null }> {
  try {
    return { failed: false, value: await work(AbortSignal.timeout(INTEGRATION_TIMEOUT_MS)) };
  } catch (error) {
    const detail = error instanceof IntegrationUnavailable ? { reason: error.reason, status: error.status } : { err: error };
    ctx.logger.warn({ companyId, service, ...detail }, 'customer context lookup failed');
    return { failed: true, value: null };
  }
}
