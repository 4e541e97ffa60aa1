import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Conversation, Lead } from '../../src/models';
import { agentTenant } from '../support/agent';
import { request } from '../support/http';
import { postStream } from '../support/sse';
import * as make from '../support/factories';

const revenuePath = (conversation: string) => `/api/agent/conversations/${conversation}/revenue`;
const leadPath = (conversation: string) => `/api/agent/conversations/${conversation}/lead`;

async function tenant() {
  const t = await agentTenant();
  return { ...t, conversation: await make.conversation(t.bot) };
}

async function storedRevenue(conversation: Conversation) {
  const row = await Conversation.findByPk(conversation.id, { attributes: ['revenueCents', 'revenueCurrency'] });
  return { cents: row!.revenueCents === null ? null : Number(row!.revenueCents), currency: row!.revenueCurrency };
}

describe('agent API: revenue', () => {
  it('records an amount in whole currency units, in USD by default, with a formatted label', async () => {
    const { token, conversation } = await tenant();
    const reply = await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 1250 } });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { revenue_cents: 125000, revenue_amount: 1250, revenue_currency: 'USD', revenue_label: '$1,250.00' });
    assert.deepEqual(await storedRevenue(conversation), { cents: 125000, currency: 'USD' });
  });

  it('upper-cases the currency, keeps cents, and falls back to the conversation\'s currency when none is sent', async () => {
    const { token, conversation } = await tenant();
    const euros = await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 19.99, currency: 'eur' } });
    assert.deepEqual(euros.body, { revenue_cents: 1999, revenue_amount: 19.99, revenue_currency: 'EUR', revenue_label: '€19.99' });

    const more = await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 100_000_000 } });
    assert.deepEqual(more.body, { revenue_cents: 10_000_000_000, revenue_amount: 100_000_000, revenue_currency: 'EUR', revenue_label: '€100,000,000.00' });
    assert.deepEqual(await storedRevenue(conversation), { cents: 10_000_000_000, currency: 'EUR' });
  });

  it('changes only the currency when no amount is sent, and changes nothing on an empty body', async () => {
    const { token, conversation } = await tenant();
    await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 42 } });
    const pounds = await request('POST', revenuePath(conversation.publicId), { token, body: { currency: 'GBP' } });
    assert.deepEqual(pounds.body, { revenue_cents: 4200, revenue_amount: 42, revenue_currency: 'GBP', revenue_label: '£42.00' });
    const unchanged = await request('POST', revenuePath(conversation.publicId), { token });
    assert.deepEqual(unchanged.body, pounds.body);
    assert.deepEqual(await storedRevenue(conversation), { cents: 4200, currency: 'GBP' });
  });

  it('reads an unset or cleared amount as zero (the fields are not nullable) and stores null', async () => {
    const { token, conversation } = await tenant();
    const fresh = await request('POST', revenuePath(conversation.publicId), { token, body: {} });
    assert.deepEqual(fresh.body, { revenue_cents: 0, revenue_amount: 0, revenue_currency: 'USD', revenue_label: '$0.00' });
    assert.deepEqual(await storedRevenue(conversation), { cents: null, currency: 'USD' });

    await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 10, currency: 'JPY' } });
    const cleared = await request('POST', revenuePath(conversation.publicId), { token, body: { amount: null } });
    assert.deepEqual(cleared.body, { revenue_cents: 0, revenue_amount: 0, revenue_currency: 'JPY', revenue_label: '¥0' });
    assert.deepEqual(await storedRevenue(conversation), { cents: null, currency: 'JPY' });
  });

  it('answers 422 per field for a bad amount or currency, storing nothing', async () => {
    const { token, conversation } = await tenant();
    await request('POST', revenuePath(conversation.publicId), { token, body: { amount: 5 } });
    for (const [body, field, message] of [
      [{ amount: 100_000_001 }, 'amount', 'The amount field must not be greater than 100000000.'],
      [{ amount: -1 }, 'amount', 'The amount field must be at least 0.'],
      [{ amount: '12' }, 'amount', 'The amount field must be a number.'],
      [{ currency: 'US' }, 'currency', 'The currency must be a three-letter code like USD.'],
      [{ currency: 'ZZZ' }, 'currency', 'The selected currency is invalid.'],
      [{ currency: 840 }, 'currency', 'The currency field must be a string.'],
    ] as const) {
      const reply = await request('POST', revenuePath(conversation.publicId), { token, body });
      assert.equal(reply.status, 422, JSON.stringify(body));
      assert.deepEqual(reply.body.errors, { [field]: [message] }, JSON.stringify(body));
    }
    assert.deepEqual(await storedRevenue(conversation), { cents: 500, currency: 'USD' });
  });

  it("is 403 for a viewer, 404 for another workspace's, unknown or malformed conversation", async () => {
    const { company, token, conversation } = await tenant();
    const viewer = await make.token(await make.user(company, 'viewer'), 'agent');
    assert.equal((await request('POST', revenuePath(conversation.publicId), { token: viewer, body: { amount: 1 } })).status, 403);
    const theirs = await tenant();
    for (const id of [theirs.conversation.publicId, randomUUID(), 'nope']) {
      const reply = await request('POST', revenuePath(id), { token, body: { amount: 1 } });
      assert.equal(reply.status, 404, id);
      assert.equal(reply.body.message, 'Conversation not found.');
    }
    assert.deepEqual(await storedRevenue(theirs.conversation), { cents: null, currency: null });
    assert.equal((await request('POST', revenuePath(conversation.publicId), { body: { amount: 1 } })).status, 401);
  });
});

describe('agent API: lead', () => {
  it('refuses with 422 while no name, email or phone has been captured', async () => {
    const { token, conversation } = await tenant();
    await conversation.update({ visitorName: '   ', prechat: [{ field: 'company', value: 'Acme' }, { field: 'email', value: ' ' }] });
    const reply = await request('POST', leadPath(conversation.publicId), { token });
    assert.equal(reply.status, 422);
    assert.equal(reply.body.message, 'No name, email or phone has been captured in this conversation yet.');
    assert.equal(await Lead.count({ where: { conversationId: conversation.id } }), 0);
  });

  it('saves the captured details as a new chat lead (201), once per conversation (200 on a repeat)', async () => {
    const { company, bot, token, conversation } = await tenant();
    await conversation.update({ visitorEmail: 'ann@example.test' });
    const created = await request('POST', leadPath(conversation.publicId), { token });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body), ['lead']);
    const { id } = created.body.lead;
    assert.ok(Number.isInteger(id));
    assert.deepEqual(created.body, { lead: { id, status: 'new', source: 'chat' } });
    const row = await Lead.findByPk(id);
    assert.deepEqual(
      { companyId: row!.companyId, conversationId: Number(row!.conversationId), name: row!.name, email: row!.email, phone: row!.phone },
      { companyId: company.id, conversationId: Number(conversation.id), name: null, email: 'ann@example.test', phone: null },
    );

    // Later the visitor leaves a phone number (through the widget, so the conversation's actor records it)
    // and the lead has moved on: saving again fills it in and keeps the status.
    await row!.update({ status: 'contacted' });
    const body = { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, message: 'Call me', meta: { visitor: { phone: '+44 20 7946 0000' } } };
    assert.equal((await postStream(`/widget/${bot.publicKey}/stream`, body, { 'X-Forwarded-For': '10.8.0.1' })).events[0]?.event, 'meta');
    const again = await request('POST', leadPath(conversation.publicId), { token });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { lead: { id, status: 'contacted', source: 'chat' } });
    const rows = await Lead.findAll({ where: { conversationId: conversation.id } });
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]!.email, rows[0]!.phone], ['ann@example.test', '+44 20 7946 0000']);
  });

  it('takes details from the pre-chat answers when the visitor columns are empty', async () => {
    const { token, conversation } = await tenant();
    await conversation.update({ prechat: [{ field: 'name', value: ' Ann Example ' }, { field: 'phone', value: '555-0100' }] });
    const reply = await request('POST', leadPath(conversation.publicId), { token });
    assert.equal(reply.status, 201);
    const row = await Lead.findByPk(reply.body.lead.id);
    assert.deepEqual([row!.name, row!.email, row!.phone], ['Ann Example', null, '555-0100']);
  });

  it("is 403 for a viewer, 404 for another workspace's, unknown or malformed conversation", async () => {
    const { company, token, conversation } = await tenant();
    await conversation.update({ visitorName: 'Ann' });
    const viewer = await make.token(await make.user(company, 'viewer'), 'agent');
    assert.equal((await request('POST', leadPath(conversation.publicId), { token: viewer })).status, 403);
    const theirs = await tenant();
    await theirs.conversation.update({ visitorName: 'Theirs' });
    for (const id of [theirs.conversation.publicId, randomUUID(), 'nope']) {
      const reply = await request('POST', leadPath(id), { token });
      assert.equal(reply.status, 404, id);
      assert.equal(reply.body.message, 'Conversation not found.');
    }
    assert.equal(await Lead.count({ where: { companyId: theirs.company.id } }), 0);
    assert.equal(await Lead.count({ where: { companyId: company.id } }), 0);
    assert.equal((await request('POST', leadPath(conversation.publicId))).status, 401);
  });
});
