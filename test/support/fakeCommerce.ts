import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for the Shopify Admin REST API (2024-10) and the Stripe API, speaking their wire
 * shapes for the calls Parley makes. Each store is keyed by its access token and each Stripe account by
 * its secret key, so every test brings its own and reads back exactly what was sent with it.
 */
export interface FakeShop {
  accessToken: string;
  /** shop.json's `domain` (the storefront's primary domain). */
  domain?: string;
  currency?: string;
  customers?: ShopifyCustomer[];
  orders?: ShopifyOrderWire[];
  products?: ShopifyProductWire[];
  /** Answer every call with this status and Shopify's error body. */
  fail?: number;
  /** Never answer. */
  hang?: boolean;
}

export interface FakeStripeAccount {
  secretKey: string;
  customers?: StripeCustomerWire[];
  subscriptions?: StripeSubscriptionWire[];
  /** Products by id, for `expand[]=data.plan.product`. */
  products?: Record<string, { id: string; object: 'product'; name: string }>;
  fail?: number;
  hang?: boolean;
}

export interface CommerceRequest {
  service: 'shopify' | 'stripe';
  method: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface FakeCommerce {
  url: string;
  requests: CommerceRequest[];
  addShop(shop: FakeShop): void;
  addStripe(account: FakeStripeAccount): void;
  /** The requests that carried this access token (Shopify) or secret key (Stripe). */
  requestsWith(credential: string): CommerceRequest[];
  /** SHOPIFY_BASE_URL and STRIPE_BASE_URL pointing here. */
  envFor(): Record<string, string>;
  close(): Promise<void>;
}

export interface ShopifyCustomer {
  id: number;
  email: string;
  first_name?: string;
  last_name?: string;
}

export type ShopifyOrderWire = Record<string, unknown> & { id: number; customer: { id: number } };
export type ShopifyProductWire = Record<string, unknown> & { id: number };
export type StripeCustomerWire = Record<string, unknown> & { id: string; email: string | null };
export type StripeSubscriptionWire = Record<string, unknown> & { id: string; customer: string; status: string };

export async function startFakeCommerce(): Promise<FakeCommerce> {
  const shops = new Map<string, FakeShop>();
  const accounts = new Map<string, FakeStripeAccount>();
  const requests: CommerceRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const service = url.pathname.startsWith('/admin/api/') ? 'shopify' : url.pathname.startsWith('/v1/') ? 'stripe' : undefined;
    if (!service) return json(res, 404, { error: 'not found' });
    requests.push({ service, method: req.method ?? 'GET', pathname: url.pathname, query: url.searchParams, headers: req.headers });
    if (req.method !== 'GET') return json(res, 405, { error: 'only GET is faked' });
    if (service === 'shopify') shopify(req, res, url);
    else stripe(req, res, url);
  }

  function shopify(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const shop = shops.get(String(req.headers['x-shopify-access-token'] ?? ''));
    if (!shop) return json(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    if (shop.hang) return;
    if (shop.fail) return json(res, shop.fail, { errors: 'Internal Server Error' });
    const path = url.pathname.replace(/^\/admin\/api\/2024-10/, '');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    switch (path) {
      case '/customers/search.json': {
        // The real search matches tokens loosely; containment is close enough to need an exact check on our side.
        const term = (url.searchParams.get('query') ?? '').replace(/^email:/, '').toLowerCase();
        return json(res, 200, { customers: (shop.customers ?? []).filter((c) => term && c.email.toLowerCase().includes(term)).map(shopifyCustomer) });
      }
      case '/orders.json': {
        const customerId = Number(url.searchParams.get('customer_id'));
        const status = url.searchParams.get('status') ?? 'open';
        const orders = (shop.orders ?? []).filter((o) => o.customer.id === customerId && (status === 'any' || o.closed_at === null));
        return json(res, 200, { orders: orders.slice(0, limit) });
      }
      case '/shop.json':
        return json(res, 200, {
          shop: { id: 548380009, name: 'Fake Shop', domain: shop.domain ?? 'fake-shop.myshopify.com', myshopify_domain: 'fake-shop.myshopify.com', currency: shop.currency ?? 'USD' },
        });
      case '/products.json':
        return json(res, 200, { products: (shop.products ?? []).slice(0, limit) });
      default:
        return json(res, 404, { errors: 'Not Found' });
    }
  }

  function stripe(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const key = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    const account = accounts.get(key);
    if (!account) return json(res, 401, { error: { message: `Invalid API Key provided: ${key.slice(0, 8)}****`, type: 'invalid_request_error' } });
    if (account.hang) return;
    if (account.fail) return json(res, account.fail, { error: { message: 'An unknown error occurred', type: 'api_error' } });
    const limit = Number(url.searchParams.get('limit') ?? 10);
    switch (url.pathname) {
      case '/v1/customers': {
        const email = url.searchParams.get('email');
        const found = (account.customers ?? []).filter((c) => email === null || c.email === email);
        return json(res, 200, stripeList('/v1/customers', found.slice(0, limit), found.length > limit));
      }
      case '/v1/subscriptions': {
        const status = url.searchParams.get('status');
        const expand = url.searchParams.getAll('expand[]');
        const found = (account.subscriptions ?? [])
          .filter((s) => s.customer === url.searchParams.get('customer'))
          // Without status=all (or canceled), Stripe leaves canceled subscriptions out.
          .filter((s) => status === 'all' || (status ? s.status === status : s.status !== 'canceled'))
          .map((s) => (expand.includes('data.plan.product') ? expandPlanProduct(s, account) : s));
        return json(res, 200, stripeList('/v1/subscriptions', found.slice(0, limit), found.length > limit));
      }
      default:
        return json(res, 404, { error: { message: `Unrecognized request URL (GET: ${url.pathname}).`, type: 'invalid_request_error' } });
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    addShop: (shop) => void shops.set(shop.accessToken, shop),
    addStripe: (account) => void accounts.set(account.secretKey, account),
    requestsWith: (credential) =>
      requests.filter((r) => r.headers['x-shopify-access-token'] === credential || r.headers.authorization === `Bearer ${credential}`),
    envFor: () => ({ SHOPIFY_BASE_URL: url, STRIPE_BASE_URL: url }),
    async close() {
      // Hanging answers never end by themselves; destroying their sockets lets close() return.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

const shopifyCustomer = (c: ShopifyCustomer) => ({
  id: c.id,
  email: c.email,
  first_name: c.first_name ?? null,
  last_name: c.last_name ?? null,
  orders_count: 0,
  state: 'enabled',
  currency: 'USD',
  created_at: '2024-01-05T10:00:00-05:00',
});

const stripeList = (path: string, data: unknown[], hasMore: boolean) => ({ object: 'list', url: path, has_more: hasMore, data });

function expandPlanProduct(subscription: StripeSubscriptionWire, account: FakeStripeAccount): StripeSubscriptionWire {
  const plan = subscription.plan as { product?: unknown } | null | undefined;
  if (!plan || typeof plan.product !== 'string') return subscription;
  const product = account.products?.[plan.product] ?? plan.product;
  return { ...subscription, plan: { ...plan, product } };
}

/** A Shopify order as the Admin API returns it (the fields Parley reads and a few it does not). */
export function shopifyOrder(customerId: number, fields: { id: number; name: string; total_price: string; currency?: string; financial_status?: string | null; fulfillment_status?: string | null; created_at: string }): ShopifyOrderWire {
  return {
    id: fields.id,
    admin_graphql_api_id: `gid://shopify/Order/${fields.id}`,
    name: fields.name,
    order_number: Number(fields.name.replace(/\D/g, '')) || 1001,
    email: 'ignored@example.test',
    total_price: fields.total_price,
    subtotal_price: fields.total_price,
    currency: fields.currency ?? 'USD',
    financial_status: fields.financial_status === undefined ? 'paid' : fields.financial_status,
    fulfillment_status: fields.fulfillment_status === undefined ? null : fields.fulfillment_status,
    created_at: fields.created_at,
    updated_at: fields.created_at,
    closed_at: null,
    cancelled_at: null,
    order_status_url: `https://fake-shop.myshopify.com/orders/${fields.id}/authenticate`,
    customer: { id: customerId },
    line_items: [],
  };
}

/** A Shopify product as the Admin API returns it. */
export function shopifyProduct(fields: {
  id: number;
  title: string;
  handle?: string;
  body_html?: string | null;
  product_type?: string;
  tags?: string;
  image?: string | null;
  variants?: Array<{ id: number; price: string; inventory_quantity?: number; inventory_management?: string | null; inventory_policy?: 'deny' | 'continue' }>;
}): ShopifyProductWire {
  const image = fields.image === undefined ? `https://cdn.shopify.com/s/files/${fields.id}.jpg` : fields.image;
  return {
    id: fields.id,
    title: fields.title,
    handle: fields.handle ?? fields.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    body_html: fields.body_html === undefined ? `<p>The ${fields.title}.</p>` : fields.body_html,
    vendor: 'Fake Vendor',
    product_type: fields.product_type ?? '',
    tags: fields.tags ?? '',
    status: 'active',
    published_at: '2024-01-01T00:00:00-05:00',
    variants: (fields.variants ?? [{ id: fields.id * 10, price: '10.00', inventory_quantity: 5, inventory_management: 'shopify', inventory_policy: 'deny' }]).map(
      (v, position) => ({
        id: v.id,
        product_id: fields.id,
        title: 'Default Title',
        price: v.price,
        position: position + 1,
        inventory_policy: v.inventory_policy ?? 'deny',
        inventory_management: v.inventory_management === undefined ? 'shopify' : v.inventory_management,
        inventory_quantity: v.inventory_quantity ?? 0,
      }),
    ),
    image: image ? { id: fields.id + 1, product_id: fields.id, src: image } : null,
    images: image ? [{ id: fields.id + 1, product_id: fields.id, src: image }] : [],
  };
}

/** A Stripe customer object. */
export const stripeCustomer = (id: string, email: string, name: string | null): StripeCustomerWire => ({
  id,
  object: 'customer',
  email,
  name,
  created: 1_700_000_000,
  currency: 'usd',
  delinquent: false,
  livemode: false,
  metadata: {},
});

/**
 * A Stripe subscription with one item, as API versions before 2025-03-31 return it (`current_period_end`
 * on the subscription, `plan` mirroring the price), or the newer shape with `periodOnItem`.
 */
export function stripeSubscription(fields: {
  id: string;
  customer: string;
  status: string;
  amount: number | null;
  currency?: string;
  interval?: 'day' | 'week' | 'month' | 'year';
  intervalCount?: number;
  nickname?: string | null;
  product: string;
  periodEnd: number;
  cancelAtPeriodEnd?: boolean;
  periodOnItem?: boolean;
  withoutPlan?: boolean;
}): StripeSubscriptionWire {
  const currency = fields.currency ?? 'usd';
  const interval = fields.interval ?? 'month';
  const intervalCount = fields.intervalCount ?? 1;
  const nickname = fields.nickname ?? null;
  const plan = { id: `price_${fields.id}`, object: 'plan', active: true, amount: fields.amount, currency, interval, interval_count: intervalCount, nickname, product: fields.product };
  const price = {
    id: `price_${fields.id}`,
    object: 'price',
    currency,
    nickname,
    product: fields.product,
    recurring: { interval, interval_count: intervalCount, usage_type: 'licensed' },
    unit_amount: fields.amount,
  };
  return {
    id: fields.id,
    object: 'subscription',
    customer: fields.customer,
    status: fields.status,
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    currency,
    created: 1_700_000_000,
    ...(!fields.periodOnItem && { current_period_start: fields.periodEnd - 30 * 86_400, current_period_end: fields.periodEnd }),
    items: {
      object: 'list',
      data: [{ id: `si_${fields.id}`, object: 'subscription_item', price, quantity: 1, ...(fields.periodOnItem && { current_period_end: fields.periodEnd }) }],
      has_more: false,
    },
    ...(!fields.withoutPlan && { plan }),
    livemode: false,
    metadata: {},
  };
}
