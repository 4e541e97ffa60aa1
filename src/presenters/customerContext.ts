import type { CustomerContext, StripeLookup } from '../domain/integrations/customerContext';
import type { ShopifyOrder } from '../domain/integrations/shopify';
import type { StripeSubscription } from '../domain/integrations/stripe';
import type { Revenue } from '../domain/leads/revenue';
import type { SavedLead } from '../domain/leads/saveLead';

/** Shown beside an empty answer when a connected service failed, so the agent knows "nothing" is not the answer. */
const UNAVAILABLE = {
  shopify: 'Shopify could not be reached; orders are not shown.',
  stripe: 'Stripe could not be reached; billing details are not shown.',
} as const;

/** The customer context: the email and where it came from, `shopify` and `stripe`, plus `error` only when a connected service failed. */
export function presentCustomerContext(context: CustomerContext) {
  const { shopify, stripe } = context;
  return {
    email: context.email,
    email_source: context.source,
    lookup_skipped: context.skipped,
    shopify: {
      connected: shopify.connected,
      orders: shopify.orders.map((order) => presentStoreOrder(order, shopify.storeDomain ?? '')),
      ...(shopify.failed && { error: UNAVAILABLE.shopify }),
    },
    stripe: {
      connected: stripe.connected,
      data: stripe.lookup && presentStripeLookup(stripe.lookup),
      ...(stripe.failed && { error: UNAVAILABLE.stripe }),
    },
  };
}

/** A store order: money as a label, the order's date as a display date, a link to the order in the store's admin. */
export const presentStoreOrder = (order: ShopifyOrder, storeDomain: string) => ({
  name: order.name,
  total: money(Number(order.total_price), order.currency) ?? `${order.total_price} ${order.currency}`,
  financial_status: order.financial_status ?? 'pending',
  // Shopify leaves it null until something ships.
  fulfillment_status: order.fulfillment_status ?? 'unfulfilled',
  created_at: displayDate(order.created_at),
  url: `https://${storeDomain}/admin/orders/${order.id}`,
});

function presentStripeLookup(lookup: StripeLookup) {
  if (!lookup.found) return { found: false as const };
  return {
    found: true as const,
    customer: { name: lookup.customer.name ?? null, email: lookup.customer.email ?? null },
    subscriptions: lookup.subscriptions.map(presentSubscription),
  };
}

/** A subscription as `{status, plan, amount, renews}`: plan name, price per interval, next renewal date (null when it will not renew). */
export function presentSubscription(subscription: StripeSubscription) {
  const item = subscription.items?.data[0];
  const price = item?.price;
  const plan = subscription.plan;
  const product = plan?.product ?? price?.product;
  const productName = typeof product === 'object' && product ? product.name : null;
  const currency = plan?.currency ?? price?.currency;
  const minor = plan ? plan.amount : price?.unit_amount;
  const interval = plan ? { interval: plan.interval, count: plan.interval_count } : price?.recurring && { interval: price.recurring.interval, count: price.recurring.interval_count };
  const periodEnd = subscription.current_period_end ?? item?.current_period_end;
  const renews = ['active', 'trialing', 'past_due'].includes(subscription.status) && !subscription.cancel_at_period_end && periodEnd;
  return {
    status: subscription.status,
    plan: plan?.nickname || price?.nickname || productName || 'Subscription',
    amount: currency && typeof minor === 'number' ? perInterval(money(fromMinorUnits(minor, currency), currency) ?? `${minor} ${currency}`, interval) : null,
    renews: renews ? displayDate(new Date(periodEnd * 1000).toISOString()) : null,
  };
}

/** Exactly the revenue route's answer; no value yet (or cleared) reads as zero, since the fields are not nullable. */
export function presentRevenue(revenue: Revenue) {
  const cents = revenue.cents ?? 0;
  return {
    revenue_cents: cents,
    revenue_amount: cents / 100,
    revenue_currency: revenue.currency,
    revenue_label: money(cents / 100, revenue.currency) ?? `${(cents / 100).toFixed(2)} ${revenue.currency}`,
  };
}

export const presentLead = (lead: SavedLead) => ({ id: lead.id, status: lead.status, source: lead.source });

/** `$1,250.00`-style label; undefined for a code Intl does not accept. */
function money(amount: number, currency: string): string | undefined {
  if (!Number.isFinite(amount)) return undefined;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount);
  } catch {
    return undefined;
  }
}

/** Stripe counts in the currency's smallest unit: cents for USD, whole yen for JPY. */
function fromMinorUnits(minor: number, currency: string): number {
  try {
    const digits = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
    return minor / 10 ** digits;
  } catch {
    return minor / 100;
  }
}

function perInterval(label: string, interval: { interval: string; count?: number | null } | null | undefined): string {
  if (!interval) return label;
  const count = interval.count ?? 1;
  return count === 1 ? `${label}/${interval.interval}` : `${label} every ${count} ${interval.interval}s`;
}

/**
 * "Mar 4, 2025". A timestamp with an offset (Shopify's) keeps the date it names where it was made,
 * which is the date the shop shows.
 */
function displayDate(timestamp: string): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(timestamp)?.[0];
  const date = new Date(day ? `${day}T00:00:00Z` : timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  return new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(date);
}
