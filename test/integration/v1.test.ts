import { strict as assert } from 'node:assert';
import { KnowledgeSource, Message } from '../../src/models';
import { get } from '../support/http';
import * as make from '../support/factories';

const ISO_MICROS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const keys = (value: object) => Object.keys(value).sort();
const BRANDING_FIELDS = [
  'primary_color', 'launcher_text', 'position', 'theme', 'logo_url', 'avatar_url', 'title', 'subtitle', 'layout', 'launcher',
  'quick_replies', 'agent_avatars', 'composer_style', 'sound', 'screen_share', 'copilot', 'auto_actions', 'copilot_use_profile',
  'copilot_autostart', 'live_visitors', 'behavior_tracking', 'recommend_mode', 'language', 'proactive',
].sort();
const ENVELOPE_FIELDS = [
  'current_page', 'data', 'first_page_url', 'from', 'last_page', 'last_page_url', 'next_page_url', 'path', 'per_page',
  'prev_page_url', 'to', 'total',
].sort();

describe('REST API v1 reads', () => {
  describe('GET /api/v1/me', () => {
    it('returns the user and company of the token', async () => {
      const { company, owner, token } = await make.v1Tenant('starter');
      const { status, body } = await get('/api/v1/me', token);
      assert.equal(status, 200);
      assert.deepEqual(body, {
        user: { id: owner.id, name: owner.name, email: owner.email, role: 'owner' },
        company: { id: company.id, name: company.name, slug: company.slug, plan: 'starter' },
      });
    });
  });

  describe('GET /api/v1/chatbots', () => {
    it('lists every chatbot of the workspace and none of another', async () => {
      const { company, token, bot } = await make.v1Tenant();
      const second = await make.chatbot(company);
      await make.v1Tenant(); // a neighbour with its own chatbot
      const { status, body } = await get('/api/v1/chatbots', token);
      assert.equal(status, 200);
      assert.deepEqual(body.data.map((c: { public_key: string }) => c.public_key), [bot.publicKey, second.publicKey]);
      assert.deepEqual(body.data[0], {
        id: bot.id, public_key: bot.publicKey, name: bot.name, provider: 'openai', model: bot.model, is_active: true,
      });
    });
  });

  describe('GET /api/v1/chatbots/{key}', () => {
    it('returns the detail with the full branding object and top-level knowledge count', async () => {
      const { company, token, bot } = await make.v1Tenant();
      const parent = await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'url', title: 'Site', sourceUrl: 'https://example.com' });
      await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, type: 'text', title: 'FAQ', content: 'Hello' });
      await KnowledgeSource.create({ companyId: company.id, chatbotId: bot.id, parentId: parent.id, type: 'page', title: 'Page', sourceUrl: 'https://example.com/a' });
      await bot.update({ branding: { primary_color: '#ff0000', proactive: { enabled: true } } });

      const { status, body } = await get(`/api/v1/chatbots/${bot.publicKey}`, token);
      assert.equal(status, 200);
      assert.deepEqual(keys(body.data), ['branding', 'is_active', 'knowledge_sources', 'model', 'name', 'provider', 'public_key']);
      assert.equal(body.data.knowledge_sources, 2, 'crawled pages are not counted apart from their source');
      assert.deepEqual(keys(body.data.branding), BRANDING_FIELDS);
      assert.equal(body.data.branding.primary_color, '#ff0000');
      assert.equal(body.data.branding.proactive.enabled, true);
      assert.equal(body.data.branding.proactive.frequency, 'once_per_session', 'stored overrides merge over defaults');
    });

    it('404 alike for an unknown key and another workspace\'s chatbot', async () => {
      const { token } = await make.v1Tenant();
      const neighbour = await make.v1Tenant();
      const missing = await get('/api/v1/chatbots/pk_doesnotexist', token);
      const foreign = await get(`/api/v1/chatbots/${neighbour.bot.publicKey}`, token);
      assert.equal(missing.status, 404);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missing.body);
    });
  });

  describe('GET /api/v1/chatbots/{key}/conversations', () => {
    it('pages by most recent activity with the Laravel envelope', async () => {
      const { token, bot } = await make.v1Tenant();
      const base = Date.now() - 3_600_000;
      const made = [];
      for (let i = 0; i < 25; i++) made.push(await make.conversation(bot, { lastMessageAt: new Date(base + i * 1000) }));
      const newestFirst = made.reverse();

      const first = await get(`/api/v1/chatbots/${bot.publicKey}/conversations`, token);
      assert.equal(first.status, 200);
      assert.deepEqual(keys(first.body), ENVELOPE_FIELDS);
      const path = `http://parley.test/api/v1/chatbots/${bot.publicKey}/conversations`;
      assert.deepEqual({ ...first.body, data: undefined }, {
        current_page: 1, data: undefined, first_page_url: `${path}?page=1`, from: 1, last_page: 2, last_page_url: `${path}?page=2`,
        next_page_url: `${path}?page=2`, path, per_page: 20, prev_page_url: null, to: 20, total: 25,
      });
      assert.deepEqual(first.body.data.map((row: { id: number }) => row.id), newestFirst.slice(0, 20).map((c) => c.id));
      const row = first.body.data[0];
      assert.deepEqual(keys(row), ['id', 'last_message_at', 'public_id', 'status', 'visitor_id']);
      assert.equal(row.public_id, newestFirst[0]!.publicId);
      assert.equal(row.visitor_id, newestFirst[0]!.visitorKey);
      assert.equal(row.status, 'bot');
      assert.match(row.last_message_at, ISO_MICROS_UTC);

      const second = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?page=2`, token);
      assert.deepEqual(second.body.data.map((r: { id: number }) => r.id), newestFirst.slice(20).map((c) => c.id));
      assert.equal(second.body.from, 21);
      assert.equal(second.body.to, 25);
      assert.equal(second.body.next_page_url, null);
      assert.equal(second.body.prev_page_url, `${path}?page=1`);
    });

    it('caps per_page at 100, keeps it in page links, and refuses 0 or non-numbers', async () => {
      const { token, bot } = await make.v1Tenant();
      await make.conversation(bot);
      const capped = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?per_page=101`, token);
      assert.equal(capped.status, 200);
      assert.equal(capped.body.per_page, 100);
      assert.match(capped.body.first_page_url, /[?&]per_page=100/);
      const small = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?per_page=1`, token);
      assert.equal(small.body.per_page, 1);
      assert.equal(small.body.data.length, 1);
      for (const bad of ['0', '-3', 'abc', '2.5']) {
        const reply = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?per_page=${bad}`, token);
        assert.equal(reply.status, 422, `per_page=${bad}`);
        assert.ok(Array.isArray(reply.body.errors.per_page));
      }
      const badPage = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?page=0`, token);
      assert.equal(badPage.status, 422);
      assert.ok(badPage.body.errors.page);
    });

    it('answers a page past the end with no rows', async () => {
      const { token, bot } = await make.v1Tenant();
      await make.conversation(bot);
      const { status, body } = await get(`/api/v1/chatbots/${bot.publicKey}/conversations?page=5`, token);
      assert.equal(status, 200);
      assert.deepEqual(body.data, []);
      assert.equal(body.current_page, 5);
      assert.equal(body.total, 1);
      assert.equal(body.last_page, 1);
      assert.equal(body.from, null);
      assert.equal(body.to, null);
      assert.equal(body.next_page_url, null);
    });

    it('shows only the chatbot\'s own conversations, and 404 for another workspace\'s chatbot', async () => {
      const { company, token, bot } = await make.v1Tenant();
      const sibling = await make.chatbot(company);
      await make.conversation(sibling);
      const mine = await make.conversation(bot);
      const { body } = await get(`/api/v1/chatbots/${bot.publicKey}/conversations`, token);
      assert.deepEqual(body.data.map((r: { id: number }) => r.id), [mine.id]);
      const neighbour = await make.v1Tenant();
      assert.equal((await get(`/api/v1/chatbots/${neighbour.bot.publicKey}/conversations`, token)).status, 404);
    });
  });

  describe('GET /api/v1/conversations/{conversation}', () => {
    it('returns the full transcript in order with microsecond UTC timestamps', async () => {
      const { token, bot } = await make.v1Tenant();
      const conversation = await make.conversation(bot, {
        visitorKey: 'visitor-42',
        status: 'agent',
        messages: [['visitor', 'Hi'], ['assistant', 'Hello! How can I help?'], ['agent', 'Ada here.']],
      });
      const { status, body } = await get(`/api/v1/conversations/${conversation.publicId}`, token);
      assert.equal(status, 200);
      assert.deepEqual(keys(body.data), ['id', 'messages', 'status', 'visitor_id']);
      assert.equal(body.data.id, conversation.publicId);
      assert.equal(body.data.status, 'agent');
      assert.equal(body.data.visitor_id, 'visitor-42');
      assert.deepEqual(body.data.messages.map((m: { role: string; content: string }) => [m.role, m.content]), [
        ['visitor', 'Hi'], ['assistant', 'Hello! How can I help?'], ['agent', 'Ada here.'],
      ]);
      const stored = await Message.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] });
      body.data.messages.forEach((m: { id: number; created_at: string }, i: number) => {
        assert.deepEqual(keys(m), ['content', 'created_at', 'id', 'role']);
        assert.equal(m.id, stored[i]!.id);
        assert.match(m.created_at, ISO_MICROS_UTC);
        assert.equal(new Date(m.created_at).getTime(), stored[i]!.createdAt.getTime(), 'the same instant as stored');
      });
    });

    it('404 alike for another workspace\'s conversation, an unknown uuid and a non-uuid', async () => {
      const { token } = await make.v1Tenant();
      const neighbour = await make.v1Tenant();
      const foreign = await make.conversation(neighbour.bot, { messages: [['visitor', 'secret']] });
      const replies = await Promise.all([
        get(`/api/v1/conversations/${foreign.publicId}`, token),
        get('/api/v1/conversations/00000000-0000-4000-8000-000000000000', token),
        get('/api/v1/conversations/not-a-uuid', token),
      ]);
      for (const reply of replies) assert.equal(reply.status, 404);
      assert.deepEqual(replies[0]!.body, replies[1]!.body);
      assert.ok(!JSON.stringify(replies[0]!.body).includes('secret'));
    });
  });
});
