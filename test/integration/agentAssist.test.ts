import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { AiSuggestion, Conversation, UsageRecord, type Chatbot, type Company, type MessageRole } from '../../src/models';
import { displayDate, displayTime } from '../../src/presenters/displayTime';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { request, type Reply } from '../support/http';
import type { RecordedRequest } from '../support/fakeLlm';

const DISPLAY_TIME = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4} \d{2}:\d{2}$/;

/** An agent's workspace whose chatbot has a stored provider key (so assist calls reach the fake LLM). */
async function keyedTenant(options: Parameters<typeof agentTenant>[0] = {}) {
  const t = await agentTenant(options);
  await make.providerKey(t.company, t.bot.provider);
  return t;
}

/** A free-plan workspace (one seat: the owner works the inbox) with its monthly allowance spent. */
async function spentFreeTenant() {
  const { company, owner } = await make.workspace({ plan: 'free' });
  const bot = await make.chatbot(company);
  await make.providerKey(company, bot.provider);
  await spendAllowance(company, 100);
  return { company, bot, token: await make.token(owner, 'agent') };
}

async function spendAllowance(company: Company, calls: number): Promise<void> {
  await UsageRecord.bulkCreate(Array.from({ length: calls }, () => ({ companyId: company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'gpt-4o-mini' })));
}

const conversationWith = (bot: Chatbot, messages: Array<[MessageRole, string]> = []) => make.conversation(bot, { messages });

const post = (path: string, token: string, body?: unknown): Promise<Reply> => request('POST', `/api/agent${path}`, { token, body });

const assist = (conversation: Pick<Conversation, 'publicId'> | string, action: string, token: string, body?: unknown) =>
  post(`/conversations/${typeof conversation === 'string' ? conversation : conversation.publicId}/${action}`, token, body);

/** The system prompt and chat turns of an OpenAI-protocol request (the factories' chatbots use openai). */
function promptOf(sent: RecordedRequest): { system: string; turns: Array<{ role: string; content: string }> } {
  const [system, ...turns] = sent.body.messages as Array<{ role: string; content: string }>;
  assert.equal(system?.role, 'system');
  return { system: system.content, turns };
}

const usageKinds = async (company: Company) =>
  (await UsageRecord.findAll({ where: { companyId: company.id }, order: [['id', 'ASC']] })).map((row) => row.kind);

function assertLimitReached(reply: Reply): void {
  assert.equal(reply.status, 429, JSON.stringify(reply.body));
  assert.equal(reply.body.code, 'limit_reached');
  assert.match(reply.body.message, /monthly allowance of 100 AI messages on the Free plan/);
  assert.ok(Number(reply.headers.get('retry-after')) > 0);
}

describe('Agent AI assist', () => {
  afterEach(() => fakeLlm().reset());

  describe('display times', () => {
    it('renders agent display times and dates in UTC', () => {
      assert.equal(displayTime(new Date('2026-11-21T14:05:59Z')), 'Nov 21, 2026 14:05');
      assert.equal(displayTime(new Date('2026-03-03T09:07:00+02:00')), 'Mar 3, 2026 07:07');
      assert.equal(displayDate(new Date('2026-01-01T00:00:00Z')), 'Jan 1, 2026');
      assert.equal(displayDate(new Date('2025-12-31T23:59:59-01:00')), 'Jan 1, 2026');
    });
  });

  describe('POST /conversations/{conversation}/suggest', () => {
    it('drafts a reply from the transcript and the knowledge with the chatbot\'s model, stores it and records usage', async () => {
      const t = await keyedTenant();
      await t.bot.update({ model: 'gpt-test-suggest', instructions: 'Always offer the returns portal link.' });
      await trainDocument(server().ctx, t.bot, { type: 'text', title: 'Refund policy', content: 'Items can be returned within 30 days of delivery for a full refund.' });
      const conversation = await conversationWith(t.bot, [
        ['visitor', 'Hello there'],
        ['assistant', 'Hi! How can I help?'],
        ['system', 'Visitor asked for a human'],
        ['agent', 'Anna here, let me look.'],
        ['visitor', 'I want to return my jacket.'],
        ['visitor', 'Is a refund possible?'],
      ]);
      fakeLlm().script({ reply: '  Yes, you can return it within 30 days for a full refund.  ', usage: { in: 210, out: 14 } });

      const reply = await assist(conversation, 'suggest', t.token, { draft: 'Sure, ' });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body).sort(), ['id', 'reason', 'suggestion']);
      assert.equal(reply.body.reason, null, 'the AI did its work');
      assert.ok(Number.isInteger(reply.body.id));
      assert.equal(reply.body.suggestion, 'Yes, you can return it within 30 days for a full refund.');

      // OpenAI offers embeddings, so the knowledge was embedded when trained (knowledgeMeaning.test.ts); one model call.
      const calls = fakeLlm().requests.filter((request) => request.path !== '/v1/embeddings');
      assert.equal(calls.length, 1);
      const sent = calls[0]!;
      assert.equal(sent.body.model, 'gpt-test-suggest');
      const { system, turns } = promptOf(sent);
      assert.deepEqual(turns, [
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: 'Hi! How can I help?\n\nAnna here, let me look.' },
        { role: 'user', content: 'I want to return my jacket.\n\nIs a refund possible?' },
      ]);
      for (const part of ['within 30 days of delivery', 'Always offer the returns portal link.', 'Sure,']) {
        assert.ok(system.includes(part), `system prompt holds "${part}"`);
      }
      assert.ok(!system.includes('Visitor asked for a human'), 'system messages are not part of the transcript');

      const row = await AiSuggestion.findByPk(reply.body.id);
      assert.deepEqual(
        [row?.companyId, row?.conversationId, row?.userId, row?.suggestion, row?.outcome],
        [t.company.id, conversation.id, t.agent.id, reply.body.suggestion, 'generated'],
      );
      const usage = await UsageRecord.findAll({ where: { companyId: t.company.id } });
      assert.equal(usage.length, 1);
      assert.deepEqual(
        [usage[0]!.kind, usage[0]!.provider, usage[0]!.model, usage[0]!.tokensIn, usage[0]!.tokensOut, usage[0]!.conversationId, usage[0]!.userId, usage[0]!.chatbotId],
        ['suggest', 'openai', 'gpt-test-suggest', 210, 14, conversation.id, t.agent.id, t.bot.id],
      );
    });

    it('answers suggestion null (with a stored row) and makes no call when nothing waits for an answer', async () => {
      const t = await keyedTenant();
      const cases = [
        await conversationWith(t.bot),
        await conversationWith(t.bot, [['visitor', 'Hi'], ['assistant', 'Hello! How can I help?']]),
        await conversationWith(t.bot, [['visitor', 'Hi'], ['agent', 'Hello, Anna here.'], ['system', 'Agent joined']]),
      ];
      for (const conversation of cases) {
        const reply = await assist(conversation, 'suggest', t.token);
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        assert.equal(reply.body.suggestion, null);
        assert.equal(reply.body.reason, 'nothing_to_answer');
        assert.ok(Number.isInteger(reply.body.id));
        const row = await AiSuggestion.findByPk(reply.body.id);
        assert.deepEqual([row?.conversationId, row?.suggestion, row?.outcome], [conversation.id, null, 'generated']);
      }
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: t.company.id } }), 0);
    });

    it('answers suggestion null without a call or usage when no provider key is configured', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Where is my order?']]);
      const reply = await assist(conversation, 'suggest', t.token);
      assert.equal(reply.status, 200);
      assert.equal(reply.body.suggestion, null);
      assert.equal(reply.body.reason, 'no_provider_key', 'the inbox can say why, and what to do');
      assert.ok(Number.isInteger(reply.body.id));
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: t.company.id } }), 0);
    });

    it('answers 502 when the provider fails, storing and charging nothing', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Where is my order?']]);
      fakeLlm().script({ fail: { status: 401, message: 'bad key sk-secret' } });
      const reply = await assist(conversation, 'suggest', t.token);
      assert.equal(reply.status, 502, JSON.stringify(reply.body));
      assert.equal(reply.body.code, 'provider_unreachable');
      assert.ok(!JSON.stringify(reply.body).includes('sk-secret'));
      assert.equal(await AiSuggestion.count({ where: { conversationId: conversation.id } }), 0);
      assert.equal(await UsageRecord.count({ where: { companyId: t.company.id } }), 0);
    });

    it('answers 429 naming the allowance once the month is spent, without calling the provider', async () => {
      const t = await spentFreeTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Hello?']]);
      assertLimitReached(await assist(conversation, 'suggest', t.token));
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: t.company.id } }), 100);
      assert.equal(await AiSuggestion.count({ where: { conversationId: conversation.id } }), 0);
    });

    it('limits each agent to 30 a minute', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot);
      for (let i = 1; i <= 30; i += 1) {
        const reply = await assist(conversation, 'suggest', t.token);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers.get('x-ratelimit-limit'), '30');
        assert.equal(reply.headers.get('x-ratelimit-remaining'), String(30 - i));
      }
      const limited = await assist(conversation, 'suggest', t.token);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'too_many_requests');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      const colleague = await make.token(await make.user(t.company, 'admin'), 'agent');
      assert.equal((await assist(conversation, 'suggest', colleague)).status, 200, 'the limit is per user');
    });

    it('422 for an invalid draft', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Hi']]);
      for (const draft of ['x'.repeat(4001), 42, ['a']]) {
        const reply = await assist(conversation, 'suggest', t.token, { draft });
        assert.equal(reply.status, 422, JSON.stringify(draft));
        assert.ok(reply.body.errors.draft, JSON.stringify(reply.body));
      }
      assert.equal(await AiSuggestion.count({ where: { conversationId: conversation.id } }), 0);
    });
  });

  describe('POST /conversations/{conversation}/enhance', () => {
    it('rewrites the draft in the chosen mode with the chatbot\'s model and records usage', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Hi']]);
      fakeLlm().script({ reply: 'Thank you for your patience. Your order ships tomorrow.\n', usage: { in: 90, out: 11 } });
      const reply = await assist(conversation, 'enhance', t.token, { body: 'thx for waiting, order ships tmrw', mode: 'professional' });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body, { text: 'Thank you for your patience. Your order ships tomorrow.', enhanced: true, reason: null });

      const sent = fakeLlm().requests[0]!;
      assert.equal(sent.body.model, t.bot.model);
      const { system, turns } = promptOf(sent);
      assert.deepEqual(turns, [{ role: 'user', content: 'thx for waiting, order ships tmrw' }]);
      assert.match(system, /professional, courteous tone/);
      const [usage] = await UsageRecord.findAll({ where: { companyId: t.company.id } });
      assert.deepEqual([usage?.kind, usage?.tokensIn, usage?.tokensOut, usage?.userId, usage?.conversationId], ['enhance', 90, 11, t.agent.id, conversation.id]);
    });

    it('fixes spelling by default', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot);
      fakeLlm().script({ reply: 'Your parcel has arrived.' });
      const reply = await assist(conversation, 'enhance', t.token, { body: 'Your parcle has arived.' });
      assert.deepEqual(reply.body, { text: 'Your parcel has arrived.', enhanced: true, reason: null });
      assert.match(promptOf(fakeLlm().requests[0]!).system, /Correct spelling, grammar and punctuation only/);
    });

    it('returns the original with enhanced false when the model answers the same text or nothing', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot);
      const body = '  Your order ships tomorrow.  ';
      for (const modelReply of ['Your order ships tomorrow.\n', '', '   ']) {
        fakeLlm().script({ reply: modelReply });
        const reply = await assist(conversation, 'enhance', t.token, { body, mode: 'concise' });
        assert.equal(reply.status, 200);
        assert.deepEqual(reply.body, { text: body, enhanced: false, reason: 'no_change' }, JSON.stringify(modelReply));
      }
      assert.deepEqual(await usageKinds(t.company), ['enhance', 'enhance', 'enhance'], 'each call was made and counts');
    });

    it('returns the original with enhanced false, without a call, when no provider key is configured', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot);
      const reply = await assist(conversation, 'enhance', t.token, { body: 'helo', mode: 'friendly' });
      assert.deepEqual([reply.status, reply.body], [200, { text: 'helo', enhanced: false, reason: 'no_provider_key' }]);
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: t.company.id } }), 0);
    });

    it('422 for a whitespace-only, missing, too long or invalid draft or mode', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot);
      const whitespace = await assist(conversation, 'enhance', t.token, { body: ' \n\t ' });
      assert.equal(whitespace.status, 422);
      assert.deepEqual(whitespace.body.errors, { body: ['The body field must not be empty or only whitespace.'] });
      for (const [payload, field] of [
        [{}, 'body'],
        [{ body: '' }, 'body'],
        [{ body: 'x'.repeat(4001) }, 'body'],
        [{ body: 7 }, 'body'],
        [{ body: 'hello', mode: 'shout' }, 'mode'],
      ] as const) {
        const reply = await assist(conversation, 'enhance', t.token, payload);
        assert.equal(reply.status, 422, JSON.stringify(payload));
        assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
      }
      assert.equal(fakeLlm().requests.length, 0);
    });

    it('answers 429 naming the allowance once the month is spent', async () => {
      const t = await spentFreeTenant();
      const conversation = await conversationWith(t.bot);
      assertLimitReached(await assist(conversation, 'enhance', t.token, { body: 'helo' }));
      assert.equal(fakeLlm().requests.length, 0);
    });

    it('answers 502 when the provider fails', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot);
      fakeLlm().script({ fail: { status: 400 } });
      const reply = await assist(conversation, 'enhance', t.token, { body: 'helo' });
      assert.deepEqual([reply.status, reply.body.code], [502, 'provider_unreachable']);
    });
  });

  describe('POST /conversations/{conversation}/summary', () => {
    it('summarises the labelled transcript, stores it on the conversation and answers a display time', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot, [
        ['visitor', 'My order 1042 has not arrived.'],
        ['assistant', 'Sorry to hear that. Let me get someone.'],
        ['agent', 'I have reshipped it today.'],
      ]);
      fakeLlm().script({ reply: ' Order 1042 did not arrive; the agent reshipped it. Nothing is open. ', usage: { in: 120, out: 15 } });
      const before = Date.now();
      const reply = await assist(conversation, 'summary', t.token);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body).sort(), ['summary', 'summary_at']);
      assert.equal(reply.body.summary, 'Order 1042 did not arrive; the agent reshipped it. Nothing is open.');
      assert.match(reply.body.summary_at, DISPLAY_TIME);

      const stored = await Conversation.findByPk(conversation.id);
      assert.equal(stored?.summary, reply.body.summary);
      assert.ok(stored?.summaryAt && stored.summaryAt.getTime() >= before - 1000 && stored.summaryAt.getTime() <= Date.now());
      assert.equal(reply.body.summary_at, displayTime(stored.summaryAt));

      assert.equal(fakeLlm().requests.length, 1, 'no tags in the catalogue: no tagging call');
      const sent = fakeLlm().requests[0]!;
      assert.equal(sent.body.model, t.bot.model);
      const { turns } = promptOf(sent);
      assert.equal(turns.length, 1);
      assert.equal(turns[0]!.role, 'user');
      assert.ok(
        turns[0]!.content.includes('Visitor: My order 1042 has not arrived.\nAI assistant: Sorry to hear that. Let me get someone.\nAgent: I have reshipped it today.'),
        turns[0]!.content,
      );
      const [usage] = await UsageRecord.findAll({ where: { companyId: t.company.id } });
      assert.deepEqual([usage?.kind, usage?.tokensIn, usage?.tokensOut, usage?.conversationId], ['summary', 120, 15, conversation.id]);
    });

    it('422 when there are no messages or no provider key, without a call', async () => {
      const keyed = await keyedTenant();
      const empty = await assist(await conversationWith(keyed.bot, [['system', 'Visitor opened the chat']]), 'summary', keyed.token);
      assert.equal(empty.status, 422);
      assert.equal(empty.body.message, 'There are no messages to summarise yet.');

      const keyless = await agentTenant();
      const conversation = await conversationWith(keyless.bot, [['visitor', 'Hello']]);
      const noKey = await assist(conversation, 'summary', keyless.token);
      assert.equal(noKey.status, 422);
      assert.match(noKey.body.message, /No AI provider key is configured/);
      assert.equal((await Conversation.findByPk(conversation.id))?.summary, null);
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: [keyed.company.id, keyless.company.id] } }), 0);
    });

    it('keeps the earlier summary when the provider fails (502)', async () => {
      const t = await keyedTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Hello']]);
      await conversation.update({ summary: 'Earlier summary.' });
      fakeLlm().script({ fail: { status: 400 } });
      const reply = await assist(conversation, 'summary', t.token);
      assert.deepEqual([reply.status, reply.body.code], [502, 'provider_unreachable']);
      assert.equal((await Conversation.findByPk(conversation.id))?.summary, 'Earlier summary.');
    });

    it('answers 429 naming the allowance once the month is spent', async () => {
      const t = await spentFreeTenant();
      const conversation = await conversationWith(t.bot, [['visitor', 'Hello']]);
      assertLimitReached(await assist(conversation, 'summary', t.token));
      assert.equal((await Conversation.findByPk(conversation.id))?.summary, null);
      assert.equal(fakeLlm().requests.length, 0);
    });

    it('limits each agent to 10 a minute', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot);
      for (let i = 0; i < 10; i += 1) {
        const reply = await assist(conversation, 'summary', t.token);
        assert.equal(reply.status, 422);
        assert.equal(reply.headers.get('x-ratelimit-limit'), '10');
      }
      const limited = await assist(conversation, 'summary', t.token);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    });
  });

  describe('POST /suggestion/{suggestion}/outcome', () => {
    it('records what the agent did with a suggestion', async () => {
      const t = await agentTenant();
      const conversation = await conversationWith(t.bot);
      const { id } = (await assist(conversation, 'suggest', t.token)).body;
      for (const outcome of ['inserted', 'edited', 'dismissed', 'generated']) {
        const reply = await post(`/suggestion/${id}/outcome`, t.token, { outcome });
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        assert.deepEqual(reply.body, { id, outcome });
        assert.equal((await AiSuggestion.findByPk(id))?.outcome, outcome);
      }
    });

    it('422 for a missing or unknown outcome', async () => {
      const t = await agentTenant();
      const { id } = (await assist(await conversationWith(t.bot), 'suggest', t.token)).body;
      const missing = await post(`/suggestion/${id}/outcome`, t.token, {});
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.errors, { outcome: ['The outcome field is required.'] });
      const unknown = await post(`/suggestion/${id}/outcome`, t.token, { outcome: 'loved' });
      assert.equal(unknown.status, 422);
      assert.deepEqual(unknown.body.errors, { outcome: ['The selected outcome is invalid.'] });
      assert.equal((await AiSuggestion.findByPk(id))?.outcome, 'generated');
    });

    it('404 for another workspace\'s, an unknown or a non-numeric suggestion id', async () => {
      const t = await agentTenant();
      const other = await agentTenant();
      const { id } = (await assist(await conversationWith(other.bot), 'suggest', other.token)).body;
      for (const path of [`/suggestion/${id}/outcome`, `/suggestion/${id + 1_000_000}/outcome`, '/suggestion/abc/outcome', '/suggestion/1e3/outcome', '/suggestion/99999999999999999999/outcome']) {
        const reply = await post(path, t.token, { outcome: 'inserted' });
        assert.equal(reply.status, 404, path);
        assert.equal(reply.body.message, 'Suggestion not found.');
      }
      assert.equal((await AiSuggestion.findByPk(id))?.outcome, 'generated');
    });

    it('limits each agent to 60 a minute', async () => {
      const t = await agentTenant();
      for (let i = 0; i < 60; i += 1) assert.equal((await post('/suggestion/1/outcome', t.token, { outcome: 'inserted' })).status, 404);
      const limited = await post('/suggestion/1/outcome', t.token, { outcome: 'inserted' });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('x-ratelimit-limit'), '60');
    });
  });

  describe('access', () => {
    it('404 for another workspace\'s, an unknown or a malformed conversation id on every conversation route', async () => {
      const t = await keyedTenant();
      const other = await keyedTenant();
      const foreign = await conversationWith(other.bot, [['visitor', 'Hello']]);
      for (const id of [foreign.publicId, randomUUID(), 'not-a-uuid', String(foreign.id)]) {
        for (const [action, body] of [['suggest', {}], ['enhance', { body: 'helo' }], ['summary', {}]] as const) {
          const reply = await assist(id, action, t.token, body);
          assert.equal(reply.status, 404, `${action} ${id}`);
          assert.equal(reply.body.message, 'Conversation not found.');
        }
      }
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await AiSuggestion.count({ where: { conversationId: foreign.id } }), 0);
      assert.equal((await Conversation.findByPk(foreign.id))?.summary, null);
    });

    it('403 for a role without handle-conversations, 401 without a token, 403 for a token of another surface', async () => {
      const t = await keyedTenant({ role: 'viewer' });
      const conversation = await conversationWith(t.bot, [['visitor', 'Hello']]);
      const { id } = (await assist(conversation, 'suggest', await make.token(t.owner, 'agent'))).body;
      fakeLlm().reset();
      const routes: Array<[string, unknown]> = [
        [`/conversations/${conversation.publicId}/suggest`, {}],
        [`/conversations/${conversation.publicId}/enhance`, { body: 'helo' }],
        [`/conversations/${conversation.publicId}/summary`, {}],
        [`/suggestion/${id}/outcome`, { outcome: 'inserted' }],
      ];
      const apiToken = await make.token(t.owner, 'api');
      for (const [path, body] of routes) {
        const viewer = await post(path, t.token, body);
        assert.deepEqual([viewer.status, viewer.body.message], [403, 'This action is unauthorized.'], path);
        assert.equal((await request('POST', `/api/agent${path}`, { body })).status, 401, path);
        assert.equal((await post(path, apiToken, body)).status, 403, path);
      }
      assert.equal(fakeLlm().requests.length, 0);
      assert.equal((await AiSuggestion.findByPk(id))?.outcome, 'generated');
    });
  });
});
