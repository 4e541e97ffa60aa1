import { strict as assert } from 'node:assert';
import pino from 'pino';
import { loadConfig } from '../../config/env';
import { generateReply } from '../../src/ai/reply';
import { recordUsage } from '../../src/domain/usage/recordUsage';
import { costMicroCents } from '../../src/domain/usage/pricing';
import { Conversation, Message, UsageRecord, type Chatbot } from '../../src/models';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm';
import { get, request } from '../support/http';
import { server } from '../support/hooks';
import { TEST_ENV } from '../support/env';
import { childEnv, Running, SERVER } from '../support/processes';
import * as make from '../support/factories';
import { freshIp, portalTenant } from '../support/portal';

const WORKSPACE_KEY = 'sk-workspace-key-never-shown-7342';

/** One AI call the way a conversation makes it: through the provider adapter, stored with its usage. */
async function aiTurn(fake: FakeLlm, bot: Chatbot, conversation: Conversation, question: string): Promise<void> {
  const config = loadConfig({ ...TEST_ENV, ...fake.envFor() });
  const reply = await generateReply({ config, secrets: server().ctx.secrets, logger: pino({ level: 'silent' }) }, { chatbot: bot, question, history: [] });
  await Message.create({ companyId: bot.companyId, conversationId: conversation.id, role: 'visitor', content: question });
  await Message.create({ companyId: bot.companyId, conversationId: conversation.id, role: 'assistant', content: reply.text });
  await recordUsage({ companyId: bot.companyId, chatbotId: bot.id, conversationId: conversation.id, kind: 'reply', provider: reply.provider, model: reply.model, tokensIn: reply.tokensIn, tokensOut: reply.tokensOut });
}

describe('portal: analytics, widget snippet, key secrecy', () => {
  let fake: FakeLlm;
  before(async () => (fake = await startFakeLlm()));
  after(() => fake.close());

  it('sums the current month from the ledger and the transcript, using the key saved through the portal', async () => {
    const { company, token } = await portalTenant();
    const bot = await make.chatbot(company);
    await bot.update({ provider: 'openai', model: 'gpt-4o' });
    assert.equal((await request('PUT', '/api/portal/keys/openai', { token, body: { api_key: WORKSPACE_KEY } })).status, 200);

    fake.script({ reply: 'We ship within two days.', usage: { in: 1200, out: 300 } });
    const first = await make.conversation(bot);
    await aiTurn(fake, bot, first, 'When do you ship?');
    await aiTurn(fake, bot, first, 'And to Norway?');
    const second = await make.conversation(bot);
    await aiTurn(fake, bot, second, 'Do you ship?');
    await Message.create({ companyId: company.id, conversationId: second.id, role: 'agent', content: 'Hi, I can help.' });
    assert.ok(fake.requests.length >= 3 && fake.requests.every((r) => r.headers.authorization === `Bearer ${WORKSPACE_KEY}`), 'the workspace key was used');
    // The widget's "new chat" on both: the AI had the last word in the first only, so it alone counts as resolved by the AI.
    for (const conversation of [first, second]) {
      const reset = await request('POST', `/widget/${bot.publicKey}/chat/reset`, { body: { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId } });
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
    }
    assert.deepEqual((await Conversation.findAll({ where: { id: [first.id, second.id] }, order: [['id', 'ASC']] })).map((c) => c.resolvedByAi), [true, false]);

    // Last month's activity and another workspace's do not count.
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) - 1000);
    const old = await make.conversation(bot);
    await Conversation.update({ createdAt: lastMonth }, { where: { id: old.id } });
    const oldCall = await recordUsage({ companyId: company.id, kind: 'reply', provider: 'openai', model: 'gpt-4o', tokensIn: 5, tokensOut: 5 });
    await UsageRecord.update({ createdAt: lastMonth }, { where: { id: oldCall.id } });
    const neighbour = await make.chatbot((await make.workspace()).company);
    await make.conversation(neighbour, { messages: [['visitor', 'hi']] });

    const reply = await get('/api/portal/analytics', token);
    assert.equal(reply.status, 200);
    const now = new Date();
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    assert.deepEqual(reply.body, {
      data: {
        period: month,
        since: `${month}-01T00:00:00+00:00`,
        conversations: 2,
        resolved_by_ai: 1,
        ratings_up: 0,
        ratings_down: 0,
        messages: { ai_replies: 3, human_replies: 1, visitor_messages: 3, total: 7 },
        tokens: 3 * 1500,
        cost: (3 * costMicroCents('openai', 'gpt-4o', 1200, 300)) / 1e8,
        messages_used: 3,
      },
    });
    assert.ok(reply.body.data.cost > 0);
  });

  it('gives the snippet of the first active chatbot, else the most recent one; 404 with none', async () => {
    const { company, token } = await portalTenant();
    assert.equal((await get('/api/portal/widget-snippet', token)).status, 404);

    const older = await make.chatbot(company);
    const newer = await make.chatbot(company);
    await older.update({ isActive: false });
    await newer.update({ isActive: false });
    let reply = await get('/api/portal/widget-snippet', token);
    assert.deepEqual(reply.body, { data: { public_key: newer.publicKey, snippet: `<script src="http://parley.test/widget.js" data-key="${newer.publicKey}" defer></script>` } });

    await older.update({ isActive: true });
    reply = await get('/api/portal/widget-snippet', token);
    assert.equal(reply.body.data.public_key, older.publicKey);
  });

  it('never writes a stored key to a response or a log line, even at trace level', async function () {
    this.timeout(60_000);
    const node = new Running(SERVER, [], { env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'trace', NODE_ID: 'portal-secrecy' }) });
    try {
      const { port } = await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
      const baseUrl = `http://127.0.0.1:${String(port)}`;
      const { owner } = await make.workspace({ portal: true });
      const login = await request('POST', '/api/portal/login', { baseUrl, body: { email: owner.email, password: 'password-123' }, headers: { 'X-Forwarded-For': freshIp() } });
      const token = login.body.token as string;
      const bodies = [
        await request('PUT', '/api/portal/keys/claude', { baseUrl, token, body: { api_key: WORKSPACE_KEY } }),
        await request('GET', '/api/portal/keys', { baseUrl, token }),
        await request('PUT', '/api/portal/keys/claude', { baseUrl, token, body: { api_key: `${WORKSPACE_KEY}${'x'.repeat(300)}` } }),
        await request('GET', '/api/portal/me', { baseUrl, token }),
        await request('DELETE', '/api/portal/keys/claude', { baseUrl, token }),
      ].map((reply) => JSON.stringify(reply.body));
      await node.waitForLog((entry) => entry.req !== undefined && (entry.req as { method: string }).method === 'DELETE', 10_000);
      const secret = WORKSPACE_KEY.slice(0, 20);
      for (const body of bodies) assert.ok(!body.includes(secret), body);
      assert.ok(node.lines.length > 5, 'the server logged the requests');
      const leaks = [...node.lines, node.stderr].filter((line) => line.includes(secret));
      assert.deepEqual(leaks, []);
    } finally {
      node.child.kill('SIGTERM');
      await node.exitWithin(15_000);
    }
  });
});
