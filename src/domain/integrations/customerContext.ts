import type { AppContext } from '../../context';
import type { Conversation, IntegrationKind } from '../../models';
import { findConversation } from '../conversations/findConversation';
import { verifiedDetails } from '../conversations/identity';
import { loadConnections } from './connections';
import { INTEGRATION_TIMEOUT_MS, IntegrationUnavailable } from './http';
import { findShopifyOrders, type ShopifyOrder } from './shopify';
import { findStripeCustomer, listStripeSubscriptions, type StripeCustomer, type StripeSubscription } from './stripe';

export type StripeLookup = { found: false } | { found: true; customer: StripeCustomer; subscriptions: StripeSubscription[] };

/** Where the visitor's email came from: a verified identity token, or typed by the visitor (pre-chat form, widget meta). */
export type EmailSource = 'verified' | 'typed';

export interface VisitorEmail {
  email: string | null;
  source: EmailSource | null;
}

/** Why the services were not asked: no email at all, or only one the visitor typed. */
export type LookupSkipped = 'no_email' | 'unverified_email';

/** What the commerce services know about a visitor. `failed`: connected, but the service did not answer in time or at all. */
export interface CustomerContext extends VisitorEmail {
  skipped: LookupSkipped | null;
  shopify: { connected: boolean; failed: boolean; storeDomain: string | null; orders: ShopifyOrder[] };
  stripe: { connected: boolean; failed: boolean; lookup: StripeLookup | null };
}

/**
 * The visitor's email on this workspace's conversation: the verified identity's when it carries one,
 * else the one typed (null when none yet); 404 for a missing or foreign conversation.
 */
export async function visitorEmailOf(companyId: number, publicId: string): Promise<VisitorEmail> {
  return emailOf(await findConversation(companyId, publicId, { attributes: ['id', 'visitorEmail', 'identity'] }));
}

/** The same, of a conversation already loaded. */
export function emailOf(conversation: Pick<Conversation, 'visitorEmail' | 'identity'>): VisitorEmail {
  const verified = verifiedDetails(conversation.identity).email;
  if (verified) return { email: verified, source: 'verified' };
  const typed = conversation.visitorEmail?.trim();
  return typed ? { email: typed, source: 'typed' } : { email: null, source: null };
}

/**
 * Looks a verified email up in both services at once, each within its own deadline. A typed email is
 * never looked up: anyone can type someone else's, and the agent would be shown that person's orders
 * and payments. A service that fails is reported as failed (and logged) so the other's answer still
 * reaches the agent.
 */
export async function customerContext(ctx: AppContext, companyId: number, visitor: VisitorEmail): Promise<CustomerContext> {
  const { shopify, stripe } = await loadConnections(companyId, ctx.secrets);
  const email = visitor.source === 'verified' ? visitor.email : null;
  const skipped: LookupSkipped | null = email ? null : visitor.email ? 'unverified_email' : 'no_email';
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
    ...visitor,
    skipped,
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
