import { z } from 'zod';
import type { Config } from '../../../config/env';
import type { StripeConnection } from './connections';
import { apiUrl, getJson, wireShape } from './http';

const STRIPE_API = 'https://api.stripe.com';
const SUBSCRIPTION_LIMIT = 10;

const customer = z.object({ id: z.string(), name: z.string().nullish(), email: z.string().nullish() });
export type StripeCustomer = z.infer<typeof customer>;
const customers = z.object({ data: z.array(customer) });

/** A product id, or the product itself once expanded. */
const productRef = z.union([z.string(), z.object({ name: z.string().nullish() })]).nullish();
const recurringPrice = z.object({
  nickname: z.string().nullish(),
  amount: z.number().nullish(),
  currency: z.string(),
  interval: z.string(),
  interval_count: z.number().nullish(),
  product: productRef,
});
const subscription = z.object({
  id: z.string(),
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  // Moved from the subscription onto its items in API version 2025-03-31; read wherever it is.
  current_period_end: z.number().nullish(),
  // `plan` mirrors the price while a subscription has a single item (the usual case); items carry the rest.
  plan: recurringPrice.nullish(),
  items: z
    .object({
      data: z.array(
        z.object({
          current_period_end: z.number().nullish(),
          price: z
            .object({
              nickname: z.string().nullish(),
              unit_amount: z.number().nullish(),
              currency: z.string(),
              recurring: z.object({ interval: z.string(), interval_count: z.number().nullish() }).nullish(),
              product: productRef,
            })
            .nullish(),
        }),
      ),
    })
    .nullish(),
});
export type StripeSubscription = z.infer<typeof subscription>;
const subscriptions = z.object({ data: z.array(subscription) });

function call(config: Readonly<Config>, connection: StripeConnection, path: string, query: Record<string, string | string[]>, signal: AbortSignal) {
  const url = apiUrl(config.integrations.stripeBaseUrl ?? STRIPE_API, path, query);
  return getJson('stripe', url, { Authorization: `Bearer ${connection.secretKey}` }, signal);
}

/** The Stripe customer with this email (Stripe matches the address exactly, case-sensitively), or null. */
export async function findStripeCustomer(config: Readonly<Config>, connection: StripeConnection, email: string, signal: AbortSignal): Promise<StripeCustomer | null> {
  const listed = wireShape('stripe', customers, await call(config, connection, '/v1/customers', { email, limit: '1' }, signal));
  return listed.data[0] ?? null;
}

/**
 * The customer's subscriptions in every status, newest first. `data.plan.product` is expanded for the
 * product's name (three levels, within Stripe's limit of four; a price's product would be five).
 */
export async function listStripeSubscriptions(
  config: Readonly<Config>,
  connection: StripeConnection,
  customerId: string,
  signal: AbortSignal,
): Promise<StripeSubscription[]> {
  const query = { customer: customerId, status: 'all', limit: String(SUBSCRIPTION_LIMIT), 'expand[]': ['data.plan.product'] };
  return wireShape('stripe', subscriptions, await call(config, connection, '/v1/subscriptions', query, signal)).data;
}
