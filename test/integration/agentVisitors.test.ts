import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Chatbot, Conversation, ConversationEvent, Message, Visitor } from '../../src/models';
import { get, request, type Reply } from '../support/http';
import { agentTenant } from '../support/agent';
import { eventually } from '../support/eventually';
import { freshIp } from '../support/portal';
import * as make from '../support/factories';

const key = () => `visitor-${randomBytes(4).toString('hex')}`;
const DISPLAY_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2}$/;

const beat = (bot: Chatbot, visitorId: string, extra: Record<string, unknown> = {}): Promise<Reply> =>
  request('POST', `/widget/${bot.publicKey}/heartbeat`, {
    body: { visitor_id: visitorId, url: 'https://shop.example/shoes', title: 'Shoes', ...extra },
    headers: { 'X-Forwarded-For': freshIp(), 'User-Agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' },
  });

/** A tenant whose chatbot has live visitors switched on. */
async function liveTenant() {
  const tenant = await agentTenant();
  await tenant.bot.update({ branding: { ...tenant.bot.branding, live_visitors: true } });
  return tenant;
}

const visitors = (token: string, query = '') => get(`/api/agent/visitors${query}`, token);
const invite = (token: string, visitorId: string, body: unknown) => request('POST', `/api/agent/visitors/${encodeURIComponent(visitorId)}/invite`, { token, body });

describe('agent: live visitors and invites', () => {
  describe('GET /api/agent/visitors', () => {
    it('lists who is on the site now, with enabled, poll_seconds and total', async () => {
      const { token, bot } = await liveTenant();
      const online = key();
      assert.equal((await beat(bot, online)).status, 200);
      const reply = await eventually(() => visitors(token), (r) => r.body.total === 1);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body).sort(), ['enabled', 'poll_seconds', 'total', 'visitors']);
      assert.deepEqual([reply.body.enabled, reply.body.poll_seconds, reply.body.total], [true, 15, 1]);
      const [visitor] = reply.body.visitors;
      assert.deepEqual(Object.keys(visitor).sort(), ['browser', 'chatbot', 'chatbot_id', 'conversation_id', 'country', 'device', 'first_seen', 'id', 'last_seen', 'online', 'os', 'page', 'page_views', 'referrer', 'title'].sort());
      assert.deepEqual(
        { id: visitor.id, chatbot: visitor.chatbot, chatbot_id: visitor.chatbot_id, page: visitor.page, title: visitor.title, browser: visitor.browser, os: visitor.os, online: visitor.online, conversation_id: visitor.conversation_id },
        { id: online, chatbot: bot.name, chatbot_id: bot.id, page: 'https://shop.example/shoes', title: 'Shoes', browser: 'Chrome', os: 'Windows', online: true, conversation_id: null },
      );
      assert.match(visitor.last_seen, DISPLAY_TIME);
    });

    it('leaves out visitors who left, other workspaces\' visitors, and chatbots without live visitors', async () => {
      const { token, bot, company } = await liveTenant();
      const quiet = await make.chatbot(company);
      const other = await liveTenant();
      await Visitor.create({ companyId: company.id, chatbotId: bot.id, visitorKey: key(), lastSeenAt: new Date(Date.now() - 10 * 60_000) });
      await beat(quiet, key());
      await beat(other.bot, key());
      const here = key();
      await beat(bot, here);
      const reply = await eventually(() => visitors(token), (r) => r.body.total >= 1);
      await eventually(() => visitors(other.token), (r) => r.body.total === 1);
      assert.deepEqual(reply.body.visitors.map((v: { id: string }) => v.id), [here]);
      assert.equal(reply.body.total, 1);
    });

    it('clamps limit to 1..200; total counts everyone; enabled false without a live-visitors chatbot', async () => {
      const { token, bot } = await liveTenant();
      for (let i = 0; i < 3; i++) await beat(bot, key());
      await eventually(() => visitors(token), (r) => r.body.total === 3);
      for (const [query, listed] of [['?limit=0', 1], ['?limit=1', 1], ['?limit=-5', 1], ['?limit=500', 3], ['?limit=abc', 3], ['', 3]] as const) {
        const reply = await visitors(token, query);
        assert.deepEqual([reply.status, reply.body.visitors.length, reply.body.total], [200, listed, 3], query);
      }
      const plain = await agentTenant();
      assert.deepEqual((await visitors(plain.token)).body, { enabled: false, poll_seconds: 15, visitors: [], total: 0 });
    });
  });

  describe('POST /api/agent/visitors/{visitor}/invite', () => {
    it('201: starts a human-held conversation; the message arrives on the next heartbeat', async () => {
      const { token, bot, agent } = await liveTenant();
      const visitorId = key();
      await beat(bot, visitorId);
      const reply = await invite(token, visitorId, { message: 'Need help finding a size?' });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body).sort(), ['conversation_id', 'created', 'delivery_within_seconds', 'message']);
      assert.deepEqual([reply.body.created, reply.body.delivery_within_seconds], [true, 15]);
      assert.deepEqual({ ...reply.body.message, at: undefined }, { id: reply.body.message.id, role: 'agent', content: 'Need help finding a size?', at: undefined });
      const conversation = await Conversation.findOne({ where: { publicId: reply.body.conversation_id } });
      assert.deepEqual([conversation?.status, conversation?.handoffState, conversation?.assignedUserId, conversation?.chatbotId, conversation?.visitorKey], ['agent', 'human_connected', agent.id, bot.id, visitorId]);
      const events = await ConversationEvent.findAll({ where: { conversationId: conversation!.id } });
      assert.deepEqual(events.map((e) => `${e.type}/${e.source}`), ['invited/agent']);

      const next = await beat(bot, visitorId);
      assert.equal(next.body.conversation_id, reply.body.conversation_id);
      assert.deepEqual(next.body.messages.map((m: { id: number; content: string }) => [m.id, m.content]), [[reply.body.message.id, 'Need help finding a size?']]);
    });

    it('200 with created false when the visitor already has an open conversation', async () => {
      const { token, bot } = await liveTenant();
      const visitorId = key();
      await beat(bot, visitorId);
      const open = await make.conversation(bot, { visitorKey: visitorId, messages: [['visitor', 'Hi']] });
      const reply = await invite(token, visitorId, { message: 'Hello again' });
      assert.deepEqual([reply.status, reply.body.created, reply.body.conversation_id], [200, false, open.publicId]);
      assert.equal(await Message.count({ where: { conversationId: open.id } }), 2);
    });

    it('409 for a visitor who left; 404 for an unknown or foreign visitor and for an empty id', async () => {
      const { token, bot, company } = await liveTenant();
      const gone = key();
      await Visitor.create({ companyId: company.id, chatbotId: bot.id, visitorKey: gone, lastSeenAt: new Date(Date.now() - 10 * 60_000) });
      const left = await invite(token, gone, { message: 'Still there?' });
      assert.deepEqual([left.status, left.body.message], [409, 'This visitor has left the site.']);
      const other = await liveTenant();
      const theirs = key();
      await beat(other.bot, theirs);
      assert.equal((await invite(token, theirs, { message: 'Hi' })).status, 404);
      assert.equal((await invite(token, key(), { message: 'Hi' })).status, 404);
      assert.equal((await invite(token, '   ', { message: 'Hi' })).status, 404);
      assert.equal(await Conversation.count({ where: { companyId: company.id } }), 0);
    });

    it('truncates the visitor id to 100 characters', async () => {
      const { token, bot } = await liveTenant();
      const long = `v-${'x'.repeat(98)}`;
      await beat(bot, long);
      const reply = await invite(token, `${long}TRAILING`, { message: 'Hi there' });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
    });

    it('422: whitespace or too-long message, a foreign or inactive chatbot_id, a workspace without an active chatbot', async () => {
      const { token, bot, company } = await liveTenant();
      const visitorId = key();
      await beat(bot, visitorId);
      const other = await liveTenant();
      const inactive = await make.chatbot(company);
      await inactive.update({ isActive: false });
      for (const body of [{ message: '  ' }, { message: 'm'.repeat(2001) }, {}, { message: 'Hi', chatbot_id: other.bot.id }, { message: 'Hi', chatbot_id: inactive.id }]) {
        const reply = await invite(token, visitorId, body);
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.ok(reply.body.errors, JSON.stringify(reply.body));
      }
      await bot.update({ isActive: false });
      const none = await invite(token, visitorId, { message: 'Hi' });
      assert.equal(none.status, 422);
      assert.match(none.body.message, /no active chatbot/);
      assert.equal(await Conversation.count({ where: { companyId: company.id } }), 0);
    });

    it('sends from the requested chatbot', async () => {
      const { token, bot, company } = await liveTenant();
      const second = await make.chatbot(company);
      const visitorId = key();
      await beat(bot, visitorId);
      const reply = await invite(token, visitorId, { message: 'Hi', chatbot_id: second.id });
      assert.equal(reply.status, 201);
      assert.equal((await Conversation.findOne({ where: { publicId: reply.body.conversation_id } }))?.chatbotId, second.id);
    });

    it('429 after 30 invites a minute; 403 for a role without handle-conversations', async () => {
      const { token, bot, company } = await liveTenant();
      const visitorId = key();
      await beat(bot, visitorId);
      for (let i = 0; i < 30; i++) assert.ok([200, 201].includes((await invite(token, visitorId, { message: `Hi ${i}` })).status));
      const limited = await invite(token, visitorId, { message: 'one more' });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      const viewer = await make.user(company, 'viewer');
      assert.equal((await invite(await make.token(viewer, 'agent'), visitorId, { message: 'Hi' })).status, 403);
    });
  });
});
