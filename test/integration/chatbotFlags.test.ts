import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { visitorActorId } from '../../src/actors/visitor/protocol';
import { updateBrand } from '../../src/domain/accounts/brand';
import { draftsOnOpen } from '../../src/domain/assist/autostart';
import { suggestTags } from '../../src/domain/assist/suggestTags';
import { createTag } from '../../src/domain/catalogue/createTag';
import type { Branding } from '../../src/domain/chatbots/branding';
import { findConversationWithChatbot } from '../../src/domain/conversations/findConversation';
import { connectIntegration } from '../../src/domain/integrations/connections';
import { AiSuggestion, ConversationEvent, ConversationTag, Lead, PageView, TagSuggestion, Visitor, type Chatbot, type Company, type Conversation, type MessageRole } from '../../src/models';
import { agentTenant } from '../support/agent';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { shopifyOrder, shopifyProduct, stripeCustomer } from '../support/fakeCommerce';
import type { RecordedRequest } from '../support/fakeLlm';
import { fakeCommerce, fakeLlm, server } from '../support/hooks';
import { get, request } from '../support/http';
import { freshIp } from '../support/portal';
import { connect, Inbox, subscribe, type ClientSocket } from '../support/sockets';
import { ask, newVisitor, widgetTenant } from '../support/widget';

const unique = () => randomBytes(6).toString('hex');

/** Sets flags the way the operator's write paths store them: a partial merge over the stored branding. */
async function setFlags(bot: Chatbot, flags: Partial<Branding>): Promise<void> {
  await bot.reload();
  await bot.update({ branding: { ...bot.branding, ...flags } });
}

const post = (token: string, path: string, body?: unknown) => request('POST', `/api/agent${path}`, { token, body });

/** An agent's workspace whose chatbot has a provider key, and a conversation where the visitor waits for an answer. */
/**
 * A workspace with a key of its own, and the provider calls made with it: the fake provider is shared
 * by the whole run, and a call another test set off in the background must not count here.
 */
async function keyedTenant(messages: Array<[MessageRole, string]> = [['visitor', 'Where is my parcel?']]) {
  const t = await agentTenant();
  const key = `sk-flags-${randomBytes(6).toString('hex')}`;
  await make.providerKey(t.company, t.bot.provider, key);
  const calls = () => fakeLlm().requests.filter((request) => request.headers.authorization === `Bearer ${key}`);
  return { ...t, calls, conversation: await make.conversation(t.bot, { messages }) };
}

/** The system prompt and the chat turns of an OpenAI-protocol request. */
function promptOf(request: RecordedRequest | undefined): { system: string; rest: string } {
  const [system, ...turns] = request!.body.messages as Array<{ role: string; content: string }>;
  return { system: system!.content, rest: turns.map((turn) => turn.content).join('\n') };
}

describe('chatbot flags: each setting does what it says', function () {
  this.timeout(30_000);
  const sockets: ClientSocket[] = [];
  afterEach(() => {
    sockets.splice(0).forEach((socket) => socket.close());
    fakeLlm().reset();
  });

  describe('copilot', () => {
    it('is on by default: suggest calls the model; off, suggest is null, enhance returns the draft and summary is 422, with no call', async () => {
      const t = await keyedTenant();
      fakeLlm().script({ reply: 'It left the warehouse yesterday.' });
      const on = await post(t.token, `/conversations/${t.conversation.publicId}/suggest`);
      assert.equal(on.body.suggestion, 'It left the warehouse yesterday.');
      assert.equal(t.calls().length, 1);

      await setFlags(t.bot, { copilot: false });
      const suggest = await post(t.token, `/conversations/${t.conversation.publicId}/suggest`);
      assert.equal(suggest.status, 200);
      assert.equal(suggest.body.suggestion, null);
      assert.equal(suggest.body.reason, 'copilot_off');
      assert.ok(await AiSuggestion.findByPk(suggest.body.id), 'the request still stores its row');
      const enhance = await post(t.token, `/conversations/${t.conversation.publicId}/enhance`, { body: 'thx, wil check', mode: 'professional' });
      assert.deepEqual(enhance.body, { text: 'thx, wil check', enhanced: false, reason: 'copilot_off' });
      const summary = await post(t.token, `/conversations/${t.conversation.publicId}/summary`);
      assert.equal(summary.status, 422, JSON.stringify(summary.body));
      assert.match(summary.body.message, /copilot/);
      assert.equal(t.calls().length, 1, 'no AI call while the copilot is off');
    });
  });

  describe('copilot_autostart', () => {
    /** An agent socket following their own `private-user.<id>` channel. */
    async function userChannel(t: { token: string; agent: { id: number } }): Promise<Inbox> {
      const socket = await connect(server().url, { token: t.token });
      sockets.push(socket);
      const inbox = new Inbox(socket);
      const channel = `private-user.${t.agent.id}`;
      const auth = await post(t.token, '/broadcasting/auth', { socket_id: socket.id, channel_name: channel });
      assert.deepEqual(await subscribe(socket, channel, auth.body.auth), { ok: true });
      return inbox;
    }

    it('on: opening a conversation that waits for an answer drafts one suggestion and sends it as suggestion.ready; off: nothing', async () => {
      const t = await keyedTenant();
      await setFlags(t.bot, { copilot_autostart: true });
      const quiet = await make.chatbot(t.company);
      const untouched = await make.conversation(quiet, { messages: [['visitor', 'Hello?']] });
      const inbox = await userChannel(t);
      fakeLlm().script({ reply: 'Your parcel is on its way.' });

      // The chatbot without autostart first: only the other conversation's draft may arrive.
      assert.equal((await get(`/api/agent/conversations/${untouched.publicId}`, t.token)).status, 200);
      assert.equal((await get(`/api/agent/inbox?conversation=${t.conversation.publicId}`, t.token)).status, 200);
      const ready = await inbox.next((r) => r.name === 'suggestion.ready');
      const data = ready.payload.data as { conversation_id: string; id: number; suggestion: string };
      assert.equal(ready.payload.channel, `private-user.${t.agent.id}`);
      assert.deepEqual(Object.keys(data).sort(), ['conversation_id', 'id', 'suggestion']);
      assert.deepEqual([data.conversation_id, data.suggestion], [t.conversation.publicId, 'Your parcel is on its way.']);
      const row = await AiSuggestion.findByPk(data.id);
      assert.deepEqual([row?.conversationId, row?.userId, row?.suggestion, row?.outcome], [t.conversation.id, t.agent.id, data.suggestion, 'generated']);
      assert.equal(t.calls().length, 1, 'one AI call, for the conversation whose chatbot autostarts');
      assert.ok(!inbox.received.some((r) => (r.payload.data as { conversation_id?: string }).conversation_id === untouched.publicId));

      // Drafted once: opening it again while nothing new was said costs no second call.
      assert.equal(await draftsOnOpen(await findConversationWithChatbot(t.company.id, t.conversation.publicId), t.agent.id), false);
      assert.equal(await draftsOnOpen(await findConversationWithChatbot(t.company.id, untouched.publicId), t.agent.id), false);
    });

    it('drafts nothing when the last word is not the visitor\'s, or the copilot is off', async () => {
      const t = await keyedTenant([['visitor', 'Hi'], ['assistant', 'Hello! How can I help?']]);
      await setFlags(t.bot, { copilot_autostart: true });
      assert.equal(await draftsOnOpen(await findConversationWithChatbot(t.company.id, t.conversation.publicId), t.agent.id), false);
      const waiting = await make.conversation(t.bot, { messages: [['visitor', 'Anyone there?']] });
      assert.equal(await draftsOnOpen(await findConversationWithChatbot(t.company.id, waiting.publicId), t.agent.id), true);
      await setFlags(t.bot, { copilot: false });
      assert.equal(await draftsOnOpen(await findConversationWithChatbot(t.company.id, waiting.publicId), t.agent.id), false);
    });
  });

  describe('copilot_use_profile', () => {
    it('on: suggest and summary prompts carry the verified identity, pre-chat answers, store orders and payments; off: the transcript only', async () => {
      const t = await keyedTenant([['visitor', 'Has my order shipped?']]);
      const email = `ann-${unique()}@example.test`;
      await t.conversation.update({ visitorEmail: email, identity: { sub: `cust-${unique()}`, email, name: 'Ann Example' }, prechat: [{ field: 'phone', value: '+44 20 7946 0958' }] });
      const accessToken = `shpat_${unique()}`;
      fakeCommerce().addShop({ accessToken, customers: [{ id: 902, email }], orders: [shopifyOrder(902, { id: 5001, name: '#1001', total_price: '25.00', created_at: '2025-03-04T10:00:00Z' })] });
      await connectIntegration(t.company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken }, server().ctx.secrets);
      const secretKey = `sk_test_${unique()}`;
      fakeCommerce().addStripe({ secretKey, customers: [stripeCustomer('cus_ann', email, 'Ann Stripe')] });
      await connectIntegration(t.company.id, { kind: 'stripe', secretKey }, server().ctx.secrets);
      fakeLlm().script({ reply: 'It shipped on Monday.' });
      const profile = ['Ann Example', email, '+44 20 7946 0958', '#1001', '25.00', 'Ann Stripe'];

      await post(t.token, `/conversations/${t.conversation.publicId}/suggest`);
      await post(t.token, `/conversations/${t.conversation.publicId}/summary`);
      const [suggestOff, summaryOff] = [promptOf(t.calls()[0]), promptOf(t.calls()[1])];
      for (const fact of profile) assert.ok(!JSON.stringify([suggestOff, summaryOff]).includes(fact), `off: no "${fact}"`);
      assert.equal(fakeCommerce().requestsWith(accessToken).length, 0, 'off: nothing is looked up');

      await setFlags(t.bot, { copilot_use_profile: true });
      fakeLlm().reset();
      fakeLlm().script({ reply: 'It shipped on Monday.' });
      await post(t.token, `/conversations/${t.conversation.publicId}/suggest`);
      await post(t.token, `/conversations/${t.conversation.publicId}/summary`);
      const suggestOn = promptOf(t.calls()[0]).system;
      const summaryOn = promptOf(t.calls()[1]).rest;
      for (const fact of profile) {
        assert.ok(suggestOn.includes(fact), `suggest prompt holds "${fact}"`);
        assert.ok(summaryOn.includes(fact), `summary request holds "${fact}"`);
      }
    });

    it('looks orders up only for a verified email, never a typed one', async () => {
      const t = await keyedTenant([['visitor', 'Has my order shipped?']]);
      const email = `bob-${unique()}@example.test`;
      await t.conversation.update({ visitorEmail: email });
      const accessToken = `shpat_${unique()}`;
      fakeCommerce().addShop({ accessToken, customers: [{ id: 903, email }], orders: [shopifyOrder(903, { id: 5002, name: '#2002', total_price: '9.00', created_at: '2025-03-04T10:00:00Z' })] });
      await connectIntegration(t.company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken }, server().ctx.secrets);
      await setFlags(t.bot, { copilot_use_profile: true });
      fakeLlm().script({ reply: 'Let me check.' });
      await post(t.token, `/conversations/${t.conversation.publicId}/suggest`);
      assert.ok(!promptOf(t.calls()[0]).system.includes('#2002'));
      assert.equal(fakeCommerce().requestsWith(accessToken).length, 0);
    });
  });

  describe('auto_actions', () => {
    async function taggedTenant() {
      const t = await keyedTenant([['visitor', 'I was charged twice.']]);
      const billing = await createTag(t.company.id, { name: 'Billing' });
      const shipping = await createTag(t.company.id, { name: 'Shipping' });
      fakeLlm().script({ reply: JSON.stringify({ tags: [{ id: billing.id, confidence: 0.92, reason: 'double charge' }, { id: shipping.id, confidence: 0.5, reason: 'maybe' }] }) });
      return { ...t, billing, shipping };
    }

    /** What the summary route does after a summary: the AI's tag suggestions, stored by the conversation's actor. */
    async function refreshTags(conversation: Conversation) {
      const suggestions = await suggestTags(server().ctx, conversation.id);
      await server().actors.ask('conversation', conversation.publicId, { type: 'replaceSuggestedTags', suggestions: suggestions! });
    }

    it('on: attaches tag suggestions of confidence >= 0.8 (source ai, event tag_added source ai) and keeps the rest as suggestions', async () => {
      const t = await taggedTenant();
      await setFlags(t.bot, { auto_actions: true });
      await refreshTags(t.conversation);
      const attached = await ConversationTag.findAll({ where: { conversationId: t.conversation.id } });
      assert.deepEqual(attached.map((row) => [row.tagId, row.source]), [[t.billing.id, 'ai']]);
      const events = await ConversationEvent.findAll({ where: { conversationId: t.conversation.id, type: 'tag_added' } });
      assert.deepEqual(events.map((e) => [e.source, e.userId, e.data]), [['ai', null, { tag_id: t.billing.id }]]);
      assert.equal(await TagSuggestion.count({ where: { conversationId: t.conversation.id } }), 2);
    });

    it('off (default): only suggests', async () => {
      const t = await taggedTenant();
      await refreshTags(t.conversation);
      assert.equal(await ConversationTag.count({ where: { conversationId: t.conversation.id } }), 0);
      assert.equal(await TagSuggestion.count({ where: { conversationId: t.conversation.id } }), 2);
    });

    it('on: a visitor message carrying an email address or phone number saves the lead; off, or without contact details, none', async () => {
      const tenant = await widgetTenant();
      fakeLlm().script({ reply: 'Thanks, we will be in touch.' });
      const conversationOf = async (message: string) => (await ask(tenant, { visitor_id: newVisitor(), message })).events[0]!.data.conversation_id as string;
      const leadOf = async (publicId: string) => Lead.findOne({ include: [{ association: 'conversation', where: { publicId }, required: true }] });

      const off = await conversationOf('Mail me at ann@example.test');
      assert.equal(await leadOf(off), null, 'off: no lead');

      await setFlags(tenant.bot, { auto_actions: true });
      const both = await conversationOf('Reach me at Ann.Example@example.test or +44 20 7946 0958, thanks');
      const lead = await leadOf(both);
      assert.deepEqual([lead?.email, lead?.phone, lead?.status, lead?.source], ['Ann.Example@example.test', '+44 20 7946 0958', 'new', 'chat']);
      const plain = await conversationOf('Order 1001 was placed on 2025-03-04, where is it?');
      assert.equal(await leadOf(plain), null, 'no contact details: no lead');
    });
  });

  describe('behavior_tracking', () => {
    const beat = (bot: Chatbot, visitor: string, url: string) =>
      request('POST', `/widget/${bot.publicKey}/heartbeat`, { body: { visitor_id: visitor, url, title: 'Shop', referrer: 'https://search.example/' }, headers: { 'X-Forwarded-For': freshIp() } });
    const rowOf = (company: Company, visitor: string) => Visitor.findOne({ where: { companyId: company.id, visitorKey: visitor } });

    it('on (default): records the journey and page views; off: neither, while presence still works', async () => {
      const { company } = await make.workspace();
      const tracked = await make.chatbot(company);
      const untracked = await make.chatbot(company);
      await setFlags(untracked, { behavior_tracking: false });
      const [quiet, watched] = [newVisitor(), newVisitor()];

      for (const url of ['https://shop.example/', 'https://shop.example/shoes']) assert.equal((await beat(untracked, quiet, url)).status, 200);
      for (const url of ['https://shop.example/', 'https://shop.example/shoes']) assert.equal((await beat(tracked, watched, url)).status, 200);

      // Both visitors are flushed together: once the tracked one's second view is written, the other's state is too.
      const seen = await eventually(() => rowOf(company, watched), (row) => row?.pageViews === 2);
      assert.deepEqual([seen!.page, seen!.entryPage, seen!.referrer], ['https://shop.example/shoes', 'https://shop.example/', 'https://search.example/']);
      assert.deepEqual((await PageView.findAll({ where: { visitorId: seen!.id }, order: [['id', 'ASC']] })).map((view) => view.url), ['https://shop.example/', 'https://shop.example/shoes']);

      const hidden = await rowOf(company, quiet);
      assert.ok(hidden?.lastSeenAt, 'the visitor is recorded as present');
      assert.deepEqual([hidden.page, hidden.title, hidden.entryPage, hidden.referrer, hidden.pageViews], [null, null, null, null, 0]);
      assert.equal(await PageView.count({ where: { visitorId: hidden.id } }), 0);
      const presence = await server().actors.ask('visitor', visitorActorId(company.id, quiet), { type: 'presence' });
      assert.deepEqual([presence.online, presence.page, presence.pageViews], [true, null, 0]);
    });
  });

  describe('recommend_mode', () => {
    async function storeTenant() {
      const tenant = await widgetTenant();
      const accessToken = `shpat_${tenant.bot.publicKey}`;
      fakeCommerce().addShop({ accessToken, domain: 'shop.example', currency: 'EUR', products: [shopifyProduct({ id: 7, title: 'Trail Running Shoes', tags: 'running' })] });
      await connectIntegration(tenant.company.id, { kind: 'shopify', storeDomain: 'acme.myshopify.com', accessToken }, server().ctx.secrets);
      fakeLlm().script({ reply: 'We do.' });
      return tenant;
    }
    const recommended = async (tenant: Awaited<ReturnType<typeof storeTenant>>, message: string) =>
      (await ask(tenant, { visitor_id: newVisitor(), message })).events.some((event) => event.event === 'recommendations');

    it('off (default) never recommends; auto recommends matching products', async () => {
      const tenant = await storeTenant();
      assert.equal(await recommended(tenant, 'What running shoes do you recommend?'), false);
      await setFlags(tenant.bot, { recommend_mode: 'auto' });
      assert.equal(await recommended(tenant, 'Do you sell running shoes?'), true);
    });

    it('on_request recommends only when the visitor asks for recommendations in so many words', async () => {
      const tenant = await storeTenant();
      await setFlags(tenant.bot, { recommend_mode: 'on_request' });
      assert.equal(await recommended(tenant, 'Do you sell running shoes?'), false);
      assert.equal(await recommended(tenant, 'Which running shoes would you recommend?'), true);
      assert.equal(await recommended(tenant, 'Any suggestions for running shoes?'), true);
    });
  });

  describe('powered_by', () => {
    it("the widget config carries the workspace brand's line: Parley by default, the brand's own, empty when white-labelled", async () => {
      const tenant = await widgetTenant();
      const config = async () => (await get(`/widget/${tenant.bot.publicKey}/config`)).body.powered_by;
      assert.equal(await config(), 'Parley');
      await updateBrand(tenant.company, { powered_by: 'Acme Support' });
      assert.equal(await config(), 'Acme Support');
      await updateBrand(tenant.company, { powered_by: '' });
      assert.equal(await config(), '');
    });
  });

  describe('screen_share', () => {
    it('is stored and returned only', async () => {
      const t = await make.v1Tenant();
      assert.equal((await get(`/api/v1/chatbots/${t.bot.publicKey}`, t.token)).body.data.branding.screen_share, false);
      await setFlags(t.bot, { screen_share: true });
      assert.equal((await get(`/api/v1/chatbots/${t.bot.publicKey}`, t.token)).body.data.branding.screen_share, true);
    });
  });
});
