import { strict as assert } from 'node:assert';
import { Conversation, ConversationEvent, Message, UsageRecord } from '../../src/models';
import { connectIntegration } from '../../src/domain/integrations/connections';
import { shopifyProduct } from '../support/fakeCommerce';
import { fakeCommerce, fakeLlm, server } from '../support/hooks';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { ask, newVisitor, widgetTenant } from '../support/widget';

const REPLY = 'Parcels leave our warehouse within two working days.';

describe('widget stream (SSE through the conversation actor)', () => {
  beforeEach(() => fakeLlm().reset());

  it('streams meta, deltas and done, storing the visitor message before meta and the answer before done', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY, usage: { in: 50, out: 12 } });
    const visitor = newVisitor();
    const reply = await ask(tenant, { visitor_id: visitor, message: 'When do you ship?' });

    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(reply.headers.get('access-control-allow-origin'), '*');
    const names = reply.events.map((e) => e.event);
    assert.equal(names[0], 'meta');
    assert.equal(names.at(-1), 'done');
    assert.ok(names.slice(1, -1).length > 1 && names.slice(1, -1).every((n) => n === 'delta'), names.join(','));
    assert.deepEqual(reply.events.map((e) => Number(e.id)), reply.events.map((_, i) => i + 1), 'ids rise from 1');
    assert.equal(reply.events.slice(1, -1).map((e) => e.data.delta).join(''), REPLY);

    const meta = reply.events[0]!.data;
    assert.deepEqual(Object.keys(meta).sort(), ['conversation_id', 'status', 'visitor_message_id']);
    assert.equal(meta.status, 'bot');
    const conversation = await Conversation.findOne({ where: { publicId: meta.conversation_id } });
    assert.equal(conversation?.visitorKey, visitor);
    assert.equal(conversation?.chatbotId, tenant.bot.id);
    const messages = await Message.findAll({ where: { conversationId: conversation!.id }, order: [['id', 'ASC']] });
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [['visitor', 'When do you ship?'], ['assistant', REPLY]]);
    assert.equal(Number(messages[0]!.id), meta.visitor_message_id);
    assert.equal(Number(messages[1]!.replyToId), meta.visitor_message_id);

    const done = reply.events.at(-1)!.data;
    assert.deepEqual(Object.keys(done).sort(), ['handoff_state', 'message_id', 'source', 'sources', 'status', 'wait_remaining']);
    assert.deepEqual([done.status, done.handoff_state, done.wait_remaining], ['bot', 'bot_active', null]);
    assert.equal(done.message_id, Number(messages[1]!.id));
    assert.equal(done.source, 'ai');
    const usage = await UsageRecord.findAll({ where: { conversationId: conversation!.id } });
    assert.deepEqual(usage.map((u) => [u.kind, u.tokensIn, u.tokensOut]), [['reply', 50, 12]]);
    assert.equal(conversation?.messageCount, 2);
    assert.equal(conversation?.unreadCount, 1);
  });

  it('continues a conversation with its history, and answers from knowledge with sources', async () => {
    const tenant = await widgetTenant();
    await trainDocument(server().ctx, tenant.bot, { type: 'text', title: 'Shipping', content: 'Parcels to Norway arrive within four working days.' });
    fakeLlm().script({ reply: 'Four working days.' });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Hello' });
    const conversationId = first.events[0]!.data.conversation_id;
    const second = await ask(tenant, { visitor_id: visitor, message: 'How long to Norway?', conversation_id: conversationId });
    assert.equal(second.events[0]!.data.conversation_id, conversationId);
    assert.deepEqual(second.events.at(-1)!.data.sources, [{ title: 'Shipping', url: '' }]);
    const last = fakeLlm().requests.at(-1)!;
    const sent = JSON.stringify(last.body);
    assert.ok(sent.includes('Hello') && sent.includes('Four working days.') && sent.includes('four working days'), 'history and passages reach the provider');
  });

  it('answers extractively from knowledge when the workspace has no key', async () => {
    const tenant = await widgetTenant({ withKey: false });
    await trainDocument(server().ctx, tenant.bot, { type: 'qa', title: 'Do you ship to Norway?', question: 'Do you ship to Norway?', answer: 'Yes, within four working days.' });
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'Do you ship to Norway?' });
    const done = reply.events.at(-1)!;
    assert.equal(done.event, 'done');
    assert.equal(done.data.source, 'knowledge');
    assert.equal(fakeLlm().requests.length, 0);
  });

  it('rejects before streaming with JSON: 404 unknown or disabled key, 422 per field, 404 another visitor\'s conversation', async () => {
    const tenant = await widgetTenant();
    assert.equal((await ask({ ...tenant, base: '/widget/pk_unknown' }, { visitor_id: 'v', message: 'hi' })).status, 404);
    const disabled = await widgetTenant();
    await disabled.bot.update({ isActive: false });
    const off = await ask(disabled, { visitor_id: 'v', message: 'hi' });
    assert.deepEqual([off.status, off.body.code], [404, 'not_found']);

    for (const [body, field] of [
      [{ message: 'hi' }, 'visitor_id'],
      [{ visitor_id: 'v'.repeat(101), message: 'hi' }, 'visitor_id'],
      [{ visitor_id: 'v', message: '  \n\t ' }, 'message'],
      [{ visitor_id: 'v', message: 'm'.repeat(4001) }, 'message'],
      [{ visitor_id: 'v', message: 'hi', conversation_id: 'not-a-uuid' }, 'conversation_id'],
      [{ visitor_id: 'v', message: 'hi', identity: 'x'.repeat(4001) }, 'identity'],
    ] as const) {
      const reply = await ask(tenant, body);
      assert.equal(reply.status, 422, JSON.stringify(body).slice(0, 60));
      assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
    }
    const mine = await ask(tenant, { visitor_id: 'owner', message: 'hi' });
    const theirs = await ask(tenant, { visitor_id: 'intruder', message: 'hi', conversation_id: mine.events[0]!.data.conversation_id });
    assert.equal(theirs.status, 404);
    assert.equal(await Message.count({ where: { conversationId: (await Conversation.findOne({ where: { publicId: mine.events[0]!.data.conversation_id } }))!.id } }), 2);
  });

  it('answers 429 before streaming once the monthly allowance is spent, storing nothing', async () => {
    const tenant = await widgetTenant({ plan: 'free' });
    await UsageRecord.bulkCreate(Array.from({ length: 100 }, () => ({ companyId: tenant.company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'gpt-4o-mini' })));
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'hi' });
    assert.equal(reply.status, 429);
    assert.equal(reply.body.code, 'limit_reached');
    assert.ok(Number(reply.headers.get('retry-after')) > 0);
    assert.equal(await Conversation.count({ where: { chatbotId: tenant.bot.id } }), 0);
  });

  it('at the limit a visitor still reaches a person who holds or is asked for the conversation; the AI\'s conversations get 429', async () => {
    const tenant = await widgetTenant({ plan: 'free' });
    await UsageRecord.bulkCreate(Array.from({ length: 100 }, () => ({ companyId: tenant.company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'gpt-4o-mini' })));
    const held = await make.conversation(tenant.bot, { status: 'agent' });
    await held.update({ handoffState: 'human_connected' });
    const waiting = await make.conversation(tenant.bot);
    await waiting.update({ handoffState: 'handoff_pending', handoffRequestedAt: new Date() });
    for (const conversation of [held, waiting]) {
      const reply = await ask(tenant, { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, message: 'Still there?' });
      assert.deepEqual(reply.events.map((e) => [e.event, e.data.code]), [['meta', undefined], ['error', 'handoff']], JSON.stringify(reply.body ?? reply.events));
      assert.deepEqual((await Message.findAll({ where: { conversationId: conversation.id } })).map((m) => [m.role, m.content]), [['visitor', 'Still there?']]);
    }
    const withAi = await make.conversation(tenant.bot);
    const refused = await ask(tenant, { visitor_id: withAi.visitorKey, conversation_id: withAi.publicId, message: 'Hello?' });
    assert.deepEqual([refused.status, refused.body.code], [429, 'limit_reached']);
    assert.equal(await Message.count({ where: { conversationId: withAi.id } }), 0, 'nothing stored');
    assert.equal(await UsageRecord.count({ where: { companyId: tenant.company.id } }), 100, 'no AI call counted');
  });

  it('ends with error provider_unreachable when the provider is down, keeping the visitor message', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ fail: { status: 500 } });
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'Anyone there?' });
    assert.deepEqual(reply.events.map((e) => e.event), ['meta', 'error']);
    assert.equal(reply.events[1]!.data.code, 'provider_unreachable');
    assert.equal(typeof reply.events[1]!.data.message, 'string');
    const conversation = await Conversation.findOne({ where: { publicId: reply.events[0]!.data.conversation_id } });
    assert.deepEqual((await Message.findAll({ where: { conversationId: conversation!.id } })).map((m) => m.role), ['visitor']);
  });

  it('never stores or answers a message twice when the same client_id is sent again', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Ship?', client_id: 'c-1' });
    const conversationId = first.events[0]!.data.conversation_id;
    const retry = await ask(tenant, { visitor_id: visitor, message: 'Ship?', client_id: 'c-1', conversation_id: conversationId });
    assert.deepEqual(retry.events.map((e) => e.event), ['meta', 'delta', 'done']);
    assert.equal(retry.events[0]!.data.visitor_message_id, first.events[0]!.data.visitor_message_id);
    assert.equal(retry.events.at(-1)!.data.message_id, first.events.at(-1)!.data.message_id);
    const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
    assert.equal(await Message.count({ where: { conversationId: conversation!.id } }), 2);
    assert.equal(fakeLlm().requests.length, 1, 'the provider was asked once');
  });

  it('queues a second message behind a streaming reply; each gets its own answer, in order', async () => {
    const tenant = await widgetTenant();
    const visitor = newVisitor();
    const opened = await ask(tenant, { visitor_id: visitor, message: 'Hi' });
    const conversationId = opened.events[0]!.data.conversation_id;
    fakeLlm().script({ reply: 'A slow and thoughtful answer arrives.', delayMs: 60 });
    const [a, b] = await Promise.all([
      ask(tenant, { visitor_id: visitor, message: 'First question', conversation_id: conversationId }),
      ask(tenant, { visitor_id: visitor, message: 'Second question', conversation_id: conversationId }),
    ]);
    for (const reply of [a, b]) assert.equal(reply.events.at(-1)!.event, 'done');
    const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
    const rows = await Message.findAll({ where: { conversationId: conversation!.id }, order: [['id', 'ASC']] });
    assert.deepEqual(rows.map((m) => m.role), ['visitor', 'assistant', 'visitor', 'assistant', 'visitor', 'assistant']);
    assert.equal(Number(rows[3]!.replyToId), Number(rows[2]!.id));
    assert.equal(Number(rows[5]!.replyToId), Number(rows[4]!.id));
  });

  it('stores pre-chat details and a verified identity on the conversation; a bad identity token is 422', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: 'Hi!' });
    const withForm = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', meta: { page_url: 'https://shop.test/a', visitor: { name: 'Ada', email: 'ada@example.test' } } });
    const fromForm = await Conversation.findOne({ where: { publicId: withForm.events[0]!.data.conversation_id } });
    assert.deepEqual([fromForm?.visitorName, fromForm?.visitorEmail, fromForm?.meta], ['Ada', 'ada@example.test', { page_url: 'https://shop.test/a' }]);

    const secret = (await make.chatbotIdentitySecret(tenant.bot));
    const now = Math.floor(Date.now() / 1000);
    const good = make.identityToken(secret, { sub: 'cust-42', name: 'Grace', email: 'grace@example.test', exp: now + 600 });
    const verified = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', identity: good });
    const fromToken = await Conversation.findOne({ where: { publicId: verified.events[0]!.data.conversation_id } });
    assert.deepEqual([fromToken?.visitorName, fromToken?.visitorEmail, fromToken?.identity?.sub], ['Grace', 'grace@example.test', 'cust-42']);

    for (const token of [
      make.identityToken('wrong-secret', { sub: 'x', exp: now + 600 }),
      make.identityToken(secret, { sub: 'x', exp: now - 10 }),
      make.identityToken(secret, { sub: 'x', exp: now + 25 * 3600 }),
      make.identityToken(secret, { exp: now + 600 }),
      make.identityToken(secret, { sub: 'x', exp: now + 600 }, 'none'),
      'not.a.jwt',
    ]) {
      const refused = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', identity: token });
      assert.equal(refused.status, 422, token);
      assert.ok(refused.body.errors.identity, JSON.stringify(refused.body));
    }
    await eventually(() => Conversation.count({ where: { chatbotId: tenant.bot.id } }), (n) => n === 2, 1000);
  });

  it('sends `recommendations` from the connected store after the deltas and before done', async () => {
    const tenant = await widgetTenant();
    await tenant.bot.update({ branding: { recommend_mode: 'auto' } });
    const accessToken = `shpat_${tenant.bot.publicKey}`;
    fakeCommerce().addShop({ accessToken, domain: 'shop.example', currency: 'EUR', products: [shopifyProduct({ id: 7, title: 'Trail Running Shoes', tags: 'running' }), shopifyProduct({ id: 8, title: 'Coffee Mug' })] });
    await connectIntegration(tenant.company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken }, server().ctx.secrets);
    fakeLlm().script({ reply: REPLY });
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'Do you sell running shoes?' });
    const names = reply.events.map((e) => e.event);
    assert.deepEqual(names.slice(-2), ['recommendations', 'done'], names.join(','));
    const { products } = reply.events.at(-2)!.data;
    assert.deepEqual(products.map((p: { id: number; name: string; currency: string }) => [p.id, p.name, p.currency]), [[7, 'Trail Running Shoes', 'EUR']]);
    assert.deepEqual(Object.keys(products[0]).sort(), ['buy_url', 'currency', 'description', 'id', 'image_url', 'in_stock', 'name', 'price', 'url']);
  });

  it('sends no recommendations when no store is connected', async () => {
    const tenant = await widgetTenant();
    await tenant.bot.update({ branding: { recommend_mode: 'auto' } });
    fakeLlm().script({ reply: REPLY });
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'Do you sell running shoes?' });
    assert.ok(!reply.events.some((e) => e.event === 'recommendations'));
  });

  describe('AI escalation', () => {
    it('a visitor asking the AI for a person gets its handoff line and a wait; no model is called', async () => {
      const tenant = await widgetTenant();
      const visitor = newVisitor();
      const reply = await ask(tenant, { visitor_id: visitor, message: 'Can I talk to a human please?' });
      assert.deepEqual(reply.events.map((e) => e.event), ['meta', 'delta', 'done']);
      assert.match(reply.events[1]!.data.delta, /asked a teammate to join.*within 5 minutes/);
      const done = reply.events[2]!.data;
      assert.deepEqual([done.source, done.status, done.handoff_state, done.sources], ['handoff', 'bot', 'handoff_pending', []]);
      assert.ok(done.wait_remaining > 290 && done.wait_remaining <= 300, String(done.wait_remaining));
      assert.equal(fakeLlm().requests.length, 0, 'the handoff line is not a model call');

      const conversation = (await Conversation.findOne({ where: { publicId: reply.events[0]!.data.conversation_id } }))!;
      assert.deepEqual([conversation.handoffState, conversation.escalated, conversation.status], ['handoff_pending', true, 'bot']);
      const events = await ConversationEvent.findAll({ where: { conversationId: conversation.id } });
      assert.deepEqual(events.map((e) => `${e.type}/${e.source}`), ['handoff_requested/ai']);
      assert.equal(await UsageRecord.count({ where: { conversationId: conversation.id } }), 0);

      // The AI now stays silent until a person answers or releases the conversation.
      const next = await ask(tenant, { visitor_id: visitor, conversation_id: conversation.publicId, message: 'Hello?' });
      assert.deepEqual(next.events.map((e) => e.event), ['meta', 'error']);
      assert.equal(next.events[1]!.data.code, 'handoff');
    });

    it('an ordinary question mentioning a person is answered by the AI', async () => {
      const tenant = await widgetTenant();
      fakeLlm().script({ reply: REPLY });
      const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'Who is the best person to ask about billing?' });
      assert.equal(reply.events.at(-1)!.data.source, 'ai');
      assert.equal(reply.events.at(-1)!.data.handoff_state, 'bot_active');
    });
  });
});
