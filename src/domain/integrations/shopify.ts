import { z } from 'zod';
import type { Config } from '../../../config/env';
import type { ShopifyConnection } from './connections';
import { apiUrl, getJson, IntegrationUnavailable, wireShape } from './http';

/** The Admin REST API version Parley speaks; Shopify supports each for at least a year. */
const API = '/admin/api/2024-10';
const ORDER_LIMIT = 10;
/** One page of the catalogue (Shopify's maximum); recommendations rank within it. */
const PRODUCT_LIMIT = 250;

const customers = z.object({ customers: z.array(z.object({ id: z.number(), email: z.string().nullish() })) });

const order = z.object({
  id: z.number(),
  name: z.string(),
  total_price: z.string(),
  currency: z.string(),
  financial_status: z.string().nullish(),
  fulfillment_status: z.string().nullish(),
  created_at: z.string(),
});
export type ShopifyOrder = z.infer<typeof order>;
const orders = z.object({ orders: z.array(order) });

const variant = z.object({
  id: z.number(),
  price: z.string(),
  inventory_quantity: z.number().nullish(),
  inventory_management: z.string().nullish(),
  inventory_policy: z.string().nullish(),
});
const product = z.object({
  id: z.number(),
  title: z.string(),
  handle: z.string(),
  body_html: z.string().nullish(),
  product_type: z.string().nullish(),
  tags: z.string().nullish(),
  variants: z.array(variant).default([]),
  image: z.object({ src: z.string() }).nullish(),
  images: z.array(z.object({ src: z.string() })).nullish(),
});
export type ShopifyProduct = z.infer<typeof product>;
export type ShopifyVariant = z.infer<typeof variant>;
const products = z.object({ products: z.array(product) });

const shop = z.object({ shop: z.object({ currency: z.string(), domain: z.string().nullish() }) });
export interface ShopifyShop {
  currency: string;
  /** The storefront's primary domain, where product pages live (the myshopify domain when none is set). */
  storefrontDomain: string;
}

function call(config: Readonly<Config>, connection: ShopifyConnection, path: string, query: Record<string, string>, signal: AbortSignal) {
  const base = config.integrations.shopifyBaseUrl ?? `https://${connection.storeDomain}`;
  return getJson('shopify', apiUrl(base, `${API}${path}`, query), { 'X-Shopify-Access-Token': connection.accessToken }, signal);
}

/** The customer's latest orders (newest first), or none when no customer has exactly this email. */
export async function findShopifyOrders(config: Readonly<Config>, connection: ShopifyConnection, email: string, signal: AbortSignal): Promise<ShopifyOrder[]> {
  const found = wireShape('shopify', customers, await call(config, connection, '/customers/search.json', { query: `email:${email}` }, signal));
  // Shopify's search is fuzzy (tokens, prefixes); only the customer with this very address is the visitor.
  const customer = found.customers.find((candidate) => candidate.email?.toLowerCase() === email.toLowerCase());
  if (!customer) return [];
  const query = { customer_id: String(customer.id), status: 'any', limit: String(ORDER_LIMIT) };
  const listed = wireShape('shopify', orders, await call(config, connection, '/orders.json', query, signal));
  return listed.orders.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
}

/** The shop's currency and storefront domain plus one page of its published, active products. */
export async function listShopifyCatalogue(
  config: Readonly<Config>,
  connection: ShopifyConnection,
  signal: AbortSignal,
): Promise<{ shop: ShopifyShop; products: ShopifyProduct[] }> {
  const query = {
    status: 'active',
    published_status: 'published',
    limit: String(PRODUCT_LIMIT),
    fields: 'id,title,handle,body_html,product_type,tags,variants,image,images',
  };
  const [shopDocument, productDocument] = await Promise.all([
    call(config, connection, '/shop.json', {}, signal),
    call(config, connection, '/products.json', query, signal),
  ]);
  const { shop: details } = wireShape('shopify', shop, shopDocument);
  if (!/^[A-Z]{3}$/.test(details.currency)) throw new IntegrationUnavailable('shopify', 'malformed');
  return {
    shop: { currency: details.currency, storefrontDomain: details.domain || connection.storeDomain },
    products: wireShape('shopify', products, productDocument).products,
  };
}
