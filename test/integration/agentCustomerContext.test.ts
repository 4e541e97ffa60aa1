import { strict as assert } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Chatbot, Company } from '../../src/models';
import { Conversation, Integration } from '../../src/models';
import { connectIntegration } from '../../src/domain/integrations/connections';
import { agentTenant } from '../support/agent';
import { fakeCommerce, fakeLlm, server } from '../support/hooks';
import { get } from '../support/http';
import * as make from '../support/factories';
import { shopifyOrder, stripeCustomer, stripeSubscription, type FakeShop, type FakeStripeAccount } from '../support/fakeCommerce';
import { freshIp } from '../support/portal';
import { ask, newVisitor } from '../support/widget';

const unique = () => randomBytes(6).toString('hex');
const STORE = 'acme-outdoor.myshopify.com';
const SHOPIFY_ERROR = 'Shopify could not be reached; orders are not shown.';
const STRIPE_ERROR = 'Stripe could not be reached; billing details are not shown.';
const path = (conversation: string) => `/api/agent/conversations/${conversation}/customer-context`;

/** What the answer says beside a verified email: it was looked up. */
const VERIFIED = { email_source: 'verified', lookup_skipped: null } as const;

/** An agent's tenant with one conversation whose visitor signed in with an identity token carrying `email` (none when null). */
async function tenant(email: string | null = `ann-${unique()}@example.test`) {
  const t = await agentTenant();
  const conversation = await make.conversation(t.bot);
  if (email) await conversation.update({ visitorEmail: email, identity: { sub: `cust-${unique()}`, email } });
  return { ...t, conversation, email };
}

/** Connects the workspace's store the way the operator command does, with a fresh access token the stand-in knows. */
async function connectShop(company: Company, shop: Omit<FakeShop, 'accessToken'> = {}): Promise<string> {
  const accessToken = `shpat_${unique()}`;
  fakeCommerce().addShop({ accessToken, ...shop });
  await connectIntegration(company.id, { kind: 'shopify', storeDomain: STORE, accessToken }, server().ctx.secrets);
  return accessToken;
}

async function connectStripe(company: Company, account: Omit<FakeStripeAccount, 'secretKey'> = {}): Promise<string> {
  const secretKey = `sk_test_${unique()}`;
  fakeCommerce().addStripe({ secretKey, ...account });
  await connectIntegration(company.id, { kind: 'stripe', secretKey }, server().ctx.secrets);
  return secretKey;
}

/** The requests that looked a customer up (a connected store also serves the widget's product recommendations). */
const lookups = (credential: string) => fakeCommerce().requestsWith(credential).filter((r) => /\/(customers|orders|subscriptions)\b/.test(r.pathname));

/** A widget visitor's message, through the real stream route; answers with the conversation's public id. */
async function chat(bot: Chatbot, body: Record<string, unknown>): Promise<string> {
  const reply = await ask({ base: `/widget/${bot.publicKey}`, ip: freshIp() }, { message: 'Where is my order?', ...body });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.events.at(-1)?.event, 'done', JSON.stringify(reply.events.at(-1)));
  return reply.events[0]!.data.conversation_id;
}

/** A tenant whose store and Stripe account both know `email` as a paying customer with one order. */
async function tenantWithCustomer(email: string) {
  const t = await agentTenant();
  await make.providerKey(t.company, t.bot.provider);
  fakeLlm().script({ reply: 'Let me check.' });
  const accessToken = await connectShop(t.company, { customers: [{ id: 902, email }], orders: [shopifyOrder(902, { id: 5001, name: '#1001', total_price: '25.00', created_at: '2025-03-04T10:00:00Z' })] });
  const secretKey = await connectStripe(t.company, { customers: [stripeCustomer('cus_ann', email, 'Ann Example')] });
  return { ...t, accessToken, secretKey };
}

describe('agent API: customer context', function () {
  this.timeout(30_000);

  it('shows both services unconnected: empty orders, null data', async () => {
    const { token, conversation, email } = await tenant();
    const before = fakeCommerce().requests.length;
    const reply = await get(path(conversation.publicId), token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { email, ...VERIFIED, shopify: { connected: false, orders: [] }, stripe: { connected: false, data: null } });
    assert.equal(fakeCommerce().requests.length, before, 'nothing is looked up');
  });

  it("lists the visitor's Shopify orders, newest first, sending the store's access token", async () => {
    const { company, token, conversation, email } = await tenant();
    const accessToken = await connectShop(company, {
      customers: [
        { id: 901, email: `jo${email}` }, // the search is fuzzy: a look-alike address is not the visitor
        { id: 902, email: email!.toUpperCase() },
      ],
      orders: [
        shopifyOrder(902, { id: 5001, name: '#1001', total_price: '1250.00', created_at: '2024-11-02T09:15:00-05:00', fulfillment_status: 'fulfilled' }),
        shopifyOrder(902, { id: 5003, name: '#1003', total_price: '19.99', currency: 'EUR', financial_status: 'pending', created_at: '2025-03-04T23:30:00-05:00' }),
        shopifyOrder(902, { id: 5002, name: '#1002', total_price: '5.00', financial_status: 'refunded', fulfillment_status: 'partial', created_at: '2025-01-15T12:00:00+01:00' }),
        shopifyOrder(901, { id: 6001, name: '#2001', total_price: '99.00', created_at: '2025-02-01T10:00:00Z' }),
      ],
    });

    const reply = await get(path(conversation.publicId), token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      email,
      ...VERIFIED,
      shopify: {
        connected: true,
        orders: [
          // The shop's own date (Mar 4 in New York), not UTC's Mar 5.
          { name: '#1003', total: '€19.99', financial_status: 'pending', fulfillment_status: 'unfulfilled', created_at: 'Mar 4, 2025', url: `https://${STORE}/admin/orders/5003` },
          { name: '#1002', total: '$5.00', financial_status: 'refunded', fulfillment_status: 'partial', created_at: 'Jan 15, 2025', url: `https://${STORE}/admin/orders/5002` },
          { name: '#1001', total: '$1,250.00', financial_status: 'paid', fulfillment_status: 'fulfilled', created_at: 'Nov 2, 2024', url: `https://${STORE}/admin/orders/5001` },
        ],
      },
      stripe: { connected: false, data: null },
    });
    assert.ok(!JSON.stringify(reply.body).includes(accessToken), 'the access token is never shown');

    const sent = fakeCommerce().requestsWith(accessToken);
    assert.deepEqual(
      sent.map((r) => [r.method, r.pathname, Object.fromEntries(r.query)]),
      [
        ['GET', '/admin/api/2024-10/customers/search.json', { query: `email:${email}` }],
        ['GET', '/admin/api/2024-10/orders.json', { customer_id: '902', status: 'any', limit: '10' }],
      ],
    );
  });

  it('shows no orders when no Shopify customer has the address', async () => {
    const { company, token, conversation, email } = await tenant();
    const accessToken = await connectShop(company, { customers: [{ id: 7, email: `someone-else-${unique()}@example.test` }] });
    const reply = await get(path(conversation.publicId), token);
    assert.deepEqual(reply.body, { email, ...VERIFIED, shopify: { connected: true, orders: [] }, stripe: { connected: false, data: null } });
    assert.equal(fakeCommerce().requestsWith(accessToken).length, 1, 'no order lookup without a customer');
  });

  it("shows the Stripe customer and their subscriptions, sending the secret key as a bearer token", async () => {
    const { company, token, conversation, email } = await tenant();
    const periodEnd = Date.UTC(2025, 6, 1, 12) / 1000;
    const secretKey = await connectStripe(company, {
      customers: [stripeCustomer('cus_ann', email!, 'Ann Example')],
      products: { prod_pro: { id: 'prod_pro', object: 'product', name: 'Pro' } },
      subscriptions: [
        stripeSubscription({ id: 'sub_1', customer: 'cus_ann', status: 'active', amount: 2900, product: 'prod_pro', periodEnd }),
        stripeSubscription({ id: 'sub_2', customer: 'cus_ann', status: 'active', amount: 9000, interval: 'month', intervalCount: 3, nickname: 'Quarterly add-on', product: 'prod_x', periodEnd, cancelAtPeriodEnd: true }),
        // API versions since 2025-03-31 keep the period on the item; a multi-item subscription has no `plan`.
        stripeSubscription({ id: 'sub_3', customer: 'cus_ann', status: 'trialing', amount: 12000, currency: 'jpy', interval: 'year', nickname: 'Annual', product: 'prod_y', periodEnd, periodOnItem: true, withoutPlan: true }),
        stripeSubscription({ id: 'sub_4', customer: 'cus_ann', status: 'canceled', amount: 500, product: 'prod_pro', periodEnd }),
        stripeSubscription({ id: 'sub_5', customer: 'cus_other', status: 'active', amount: 100, product: 'prod_pro', periodEnd }),
      ],
    });

    const reply = await get(path(conversation.publicId), token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      email,
      ...VERIFIED,
      shopify: { connected: false, orders: [] },
      stripe: {
        connected: true,
        data: {
          found: true,
          customer: { name: 'Ann Example', email },
          subscriptions: [
            { status: 'active', plan: 'Pro', amount: '$29.00/month', renews: 'Jul 1, 2025' },
            { status: 'active', plan: 'Quarterly add-on', amount: '$90.00 every 3 months', renews: null },
            { status: 'trialing', plan: 'Annual', amount: '¥12,000/year', renews: 'Jul 1, 2025' },
            { status: 'canceled', plan: 'Pro', amount: '$5.00/month', renews: null },
          ],
        },
      },
    });
    assert.ok(!JSON.stringify(reply.body).includes(secretKey));

    const sent = fakeCommerce().requestsWith(secretKey);
    assert.deepEqual(
      sent.map((r) => [r.pathname, [...r.query.entries()]]),
      [
        ['/v1/customers', [['email', email], ['limit', '1']]],
        ['/v1/subscriptions', [['customer', 'cus_ann'], ['status', 'all'], ['limit', '10'], ['expand[]', 'data.plan.product']]],
      ],
    );
    assert.ok(sent.every((r) => r.headers.authorization === `Bearer ${secretKey}`));
  });

  it('answers {found: false} when no Stripe customer has the address, beside the Shopify answer', async () => {
    const { company, token, conversation, email } = await tenant();
    await connectShop(company);
    const secretKey = await connectStripe(company, { customers: [stripeCustomer('cus_x', `other-${unique()}@example.test`, null)] });
    const reply = await get(path(conversation.publicId), token);
    assert.deepEqual(reply.body, { email, ...VERIFIED, shopify: { connected: true, orders: [] }, stripe: { connected: true, data: { found: false } } });
    assert.equal(fakeCommerce().requestsWith(secretKey).length, 1);
  });

  it('looks nothing up while the visitor has given no email', async () => {
    const { company, token, conversation } = await tenant(null);
    const accessToken = await connectShop(company);
    const secretKey = await connectStripe(company);
    const reply = await get(path(conversation.publicId), token);
    assert.deepEqual(reply.body, { email: null, email_source: null, lookup_skipped: 'no_email', shopify: { connected: true, orders: [] }, stripe: { connected: true, data: null } });
    assert.equal(fakeCommerce().requestsWith(accessToken).length + fakeCommerce().requestsWith(secretKey).length, 0);
  });

  it("never looks up an email the visitor typed: the services hear nothing and agents see no orders", async () => {
    const victim = `ann-${unique()}@example.test`;
    const { bot, token, accessToken, secretKey } = await tenantWithCustomer(victim);
    const conversation = await chat(bot, { visitor_id: newVisitor(), meta: { visitor: { name: 'Mallory', email: victim } } });

    const reply = await get(path(conversation), token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      email: victim,
      email_source: 'typed',
      lookup_skipped: 'unverified_email',
      shopify: { connected: true, orders: [] },
      stripe: { connected: true, data: null },
    });
    assert.deepEqual(lookups(accessToken).concat(lookups(secretKey)), [], 'no lookup reaches Shopify or Stripe');
  });

  it("looks up the verified identity's email, and a later typed email does not replace it", async () => {
    const email = `ann-${unique()}@example.test`;
    const { bot, token, accessToken, secretKey } = await tenantWithCustomer(email);
    const secret = await make.chatbotIdentitySecret(bot);
    const identity = make.identityToken(secret, { sub: 'cust-42', name: 'Ann', email, exp: Math.floor(Date.now() / 1000) + 600 });
    const visitor = newVisitor();
    const conversation = await chat(bot, { visitor_id: visitor, identity });
    const typed = `mallory-${unique()}@example.test`;
    await chat(bot, { visitor_id: visitor, conversation_id: conversation, meta: { visitor: { name: 'Mallory', email: typed } } });

    const stored = await Conversation.findOne({ where: { publicId: conversation } });
    assert.deepEqual([stored?.visitorName, stored?.visitorEmail], ['Ann', email], 'the verified claims stay');
    assert.deepEqual(stored?.prechat, [{ field: 'name', value: 'Mallory' }, { field: 'email', value: typed }], 'what was typed is still listed as typed');

    const reply = await get(path(conversation), token);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.email, email);
    assert.equal(reply.body.email_source, 'verified');
    assert.equal(reply.body.lookup_skipped, null);
    assert.deepEqual(reply.body.shopify.orders.map((order: { name: string }) => order.name), ['#1001']);
    assert.deepEqual(reply.body.stripe.data.customer, { name: 'Ann Example', email });
    assert.ok(lookups(accessToken).length > 0 && lookups(secretKey).length > 0, 'both services were asked');
    const asked = [...lookups(accessToken), ...lookups(secretKey)].flatMap((r) => [...r.query.values()]).join(' ');
    assert.ok(asked.includes(email) && !asked.includes(typed), asked);
  });

  it('keeps one service\'s answer when the other fails, and says which failed', async () => {
    const { company, token, conversation, email } = await tenant();
    await connectShop(company, { fail: 500 });
    await connectStripe(company, { customers: [stripeCustomer('cus_ok', email!, null)] });
    const reply = await get(path(conversation.publicId), token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      email,
      ...VERIFIED,
      shopify: { connected: true, orders: [], error: SHOPIFY_ERROR },
      stripe: { connected: true, data: { found: true, customer: { name: null, email }, subscriptions: [] } },
    });
  });

  it('gives up on a service that hangs after its deadline, still answering 200', async () => {
    const { company, token, conversation, email } = await tenant();
    await connectShop(company, { hang: true });
    await connectStripe(company, { fail: 503 });
    const started = Date.now();
    const reply = await get(path(conversation.publicId), token);
    const took = Date.now() - started;
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      email,
      ...VERIFIED,
      shopify: { connected: true, orders: [], error: SHOPIFY_ERROR },
      stripe: { connected: true, data: null, error: STRIPE_ERROR },
    });
    assert.ok(took >= 4_500 && took < 9_000, `answered after ${took} ms`);
  });

  it('reports credentials the service refuses as a failure, not as "no customer"', async () => {
    const { company, token, conversation, email } = await tenant();
    // Stored but unknown to the stand-in: it answers 401 like the real services.
    await connectIntegration(company.id, { kind: 'shopify', storeDomain: STORE, accessToken: `shpat_revoked_${unique()}` }, server().ctx.secrets);
    await connectIntegration(company.id, { kind: 'stripe', secretKey: `sk_test_revoked_${unique()}` }, server().ctx.secrets);
    const reply = await get(path(conversation.publicId), token);
    assert.deepEqual(reply.body, {
      email,
      ...VERIFIED,
      shopify: { connected: true, orders: [], error: SHOPIFY_ERROR },
      stripe: { connected: true, data: null, error: STRIPE_ERROR },
    });
  });

  it('stores the secrets sealed', async () => {
    const { company } = await tenant();
    const accessToken = await connectShop(company);
    const secretKey = await connectStripe(company);
    const rows = await Integration.findAll({ where: { companyId: company.id }, order: [['kind', 'ASC']] });
    assert.deepEqual(rows.map((r) => [r.kind, r.settings]), [['shopify', { store_domain: STORE }], ['stripe', {}]]);
    assert.ok(!rows[0]!.secretEncrypted.includes(accessToken) && !rows[1]!.secretEncrypted.includes(secretKey));
    assert.equal(server().ctx.secrets.open(rows[0]!.secretEncrypted), accessToken);
    assert.equal(server().ctx.secrets.open(rows[1]!.secretEncrypted), secretKey);
  });

  it('is open to any agent token, viewers included (it changes nothing)', async () => {
    const { company, conversation, email } = await tenant();
    const viewerToken = await make.token(await make.user(company, 'viewer'), 'agent');
    const reply = await get(path(conversation.publicId), viewerToken);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.email, email);
  });

  it("is 404 for another workspace's, an unknown or a malformed conversation, and 401/403 without an agent token", async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const theirKey = await connectStripe(theirs.company, { customers: [stripeCustomer('cus_t', theirs.email!, 'T')] });
    for (const id of [theirs.conversation.publicId, randomUUID(), 'not-a-uuid', '123']) {
      const reply = await get(path(id), mine.token);
      assert.equal(reply.status, 404, id);
      assert.deepEqual(reply.body, { message: 'Conversation not found.', code: 'not_found' });
    }
    assert.equal(fakeCommerce().requestsWith(theirKey).length, 0, "the neighbour's service is never called");
    assert.equal((await get(path(mine.conversation.publicId))).status, 401);
    assert.equal((await get(path(mine.conversation.publicId), await make.token(mine.agent, 'api'))).status, 403);
  });
});
