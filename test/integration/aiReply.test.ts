import { strict as assert } from 'node:assert';
import pino from 'pino';
import { loadConfig } from '../../config/env';
import { PROVIDER_SLUGS, type ProviderSlug } from '../../config/providers';
import type { EndpointDeps } from '../../src/ai/endpoint';
import { NO_ANSWER } from '../../src/ai/extractive';
import { ProviderError } from '../../src/ai/providers';
import { generateReply } from '../../src/ai/reply';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { allowanceOf, assertAllowance } from '../../src/domain/usage/allowance';
import { costMicroCents } from '../../src/domain/usage/pricing';
import { recordUsage } from '../../src/domain/usage/recordUsage';
import { AppError } from '../../src/errors';
import { Chatbot, ProviderKey, UsageRecord, type Company } from '../../src/models';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../support/fakeLlm';
import { server } from '../support/hooks';
import { TEST_ENV } from '../support/env';
import * as make from '../support/factories';

const PLATFORM_KEY = 'sk-platform-0000';
const REPLY = 'You can return items within 30 days for a full refund.';

/** The system prompt as each protocol carries it. */
function systemOf(request: RecordedRequest): string {
  if (request.protocol === 'openai') return request.body.messages[0].content;
  if (request.protocol === 'anthropic') return request.body.system;
  return request.body.systemInstruction.parts[0].text;
}

function authOf(request: RecordedRequest): string | undefined {
  const h = request.headers;
  return (h.authorization as string | undefined)?.replace(/^Bearer /, '') ?? (h['x-api-key'] as string | undefined) ?? (h['x-goog-api-key'] as string | undefined);
}

async function botWithKnowledge(company: Company, provider: ProviderSlug): Promise<Chatbot> {
  const bot = await make.chatbot(company);
  await bot.update({ provider, model: `${provider}-test-model`, persona: 'Speak like a friendly shop assistant.', instructions: 'Always mention the order number.' });
  const deps = server().ctx;
  await trainDocument(deps, bot, { type: 'text', title: 'Refund policy', content: '# Returns\nItems can be returned within 30 days of delivery for a full refund.' });
  await trainDocument(deps, bot, { type: 'text', title: 'Shipping', content: 'Orders leave the warehouse within two business days.' });
  return bot;
}

describe('AI replies: retrieval, prompting, providers, usage', () => {
  let fake: FakeLlm;
  let deps: EndpointDeps;

  before(async () => {
    fake = await startFakeLlm();
    const keys = Object.fromEntries(PROVIDER_SLUGS.map((slug) => [`PROVIDER_${slug.toUpperCase()}_API_KEY`, PLATFORM_KEY]));
    const config = loadConfig({ ...TEST_ENV, ...fake.envFor(), ...keys, PROVIDER_TIMEOUT_MS: '2000' });
    deps = { config, secrets: server().ctx.secrets, logger: pino({ level: 'silent' }) };
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  for (const slug of PROVIDER_SLUGS) {
    it(`${slug}: streams a grounded reply through its protocol and records its usage`, async () => {
      const { company } = await make.workspace();
      const bot = await botWithKnowledge(company, slug);
      fake.script({ reply: REPLY, usage: { in: 321, out: 45 } });
      const deltas: string[] = [];
      const reply = await generateReply(deps, {
        chatbot: bot,
        question: 'How long do I have to return an item?',
        history: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello! How can I help?' }],
        onDelta: (text) => deltas.push(text),
      });
      assert.ok(deltas.length > 1, 'streamed in several deltas');
      assert.equal(deltas.join(''), REPLY);
      assert.deepEqual([reply.text, reply.model, reply.provider, reply.tokensIn, reply.tokensOut], [REPLY, bot.model, slug, 321, 45]);
      assert.deepEqual(reply.sources[0], { title: 'Refund policy', url: '' });

      assert.equal(fake.requests.length, 1);
      const [sent] = fake.requests;
      assert.equal(authOf(sent!), PLATFORM_KEY);
      assert.equal(sent!.stream, true);
      assert.equal(sent!.protocol === 'gemini' ? decodeURIComponent(sent!.path).includes(bot.model) : sent!.body.model === bot.model, true);
      const system = systemOf(sent!);
      for (const part of ['Speak like a friendly shop assistant.', 'Always mention the order number.', 'Refund policy › Returns', 'within 30 days of delivery']) {
        assert.ok(system.includes(part), `system prompt holds "${part}"`);
      }
      assert.ok(JSON.stringify(sent!.body).includes('Hello! How can I help?'), 'the transcript travels with the question');

      const usage = await recordUsage({ companyId: company.id, chatbotId: bot.id, kind: 'reply', provider: reply.provider, model: reply.model, tokensIn: reply.tokensIn, tokensOut: reply.tokensOut });
      const [row] = await UsageRecord.findAll({ where: { companyId: company.id } });
      assert.equal(row?.id, usage.id);
      assert.deepEqual([row?.kind, row?.provider, row?.model, row?.tokensIn, row?.tokensOut], ['reply', slug, bot.model, 321, 45]);
      assert.equal(Number(row?.costMicroCents), costMicroCents(slug, bot.model, 321, 45));
      assert.ok(Number(row?.costMicroCents) > 0);
    });
  }

  it('uses the workspace\'s stored key before the platform key', async () => {
    const { company } = await make.workspace();
    const bot = await botWithKnowledge(company, 'claude');
    await ProviderKey.create({ companyId: company.id, provider: 'claude', keyEncrypted: deps.secrets.seal('sk-ant-workspace-9876'), lastFour: '9876' });
    await generateReply(deps, { chatbot: bot, question: 'returns?', history: [] });
    assert.equal(authOf(fake.requests[0]!), 'sk-ant-workspace-9876');
    assert.equal(fake.requests[0]!.stream, false, 'without onDelta the call is not streamed');
  });

  it('refuses a stored key it cannot decrypt instead of silently using the platform key', async () => {
    const { company } = await make.workspace();
    const bot = await botWithKnowledge(company, 'openai');
    await ProviderKey.create({ companyId: company.id, provider: 'openai', keyEncrypted: 'v1.garbage.garbage.garbage', lastFour: '0000' });
    await assert.rejects(generateReply(deps, { chatbot: bot, question: 'returns?', history: [] }), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.failure, 'auth');
      return true;
    });
    assert.equal(fake.requests.length, 0);
  });

  it('maps a failing provider to a 502 provider_unreachable error', async () => {
    const { company } = await make.workspace();
    const bot = await botWithKnowledge(company, 'gemini');
    fake.script({ fail: { status: 500 } });
    await assert.rejects(generateReply(deps, { chatbot: bot, question: 'returns?', history: [], onDelta: () => undefined }), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.deepEqual([error.status, error.code], [502, 'provider_unreachable']);
      return true;
    });
  });

  describe('with no key at all: the extractive responder', () => {
    let keyless: EndpointDeps;
    before(() => {
      keyless = { ...deps, config: loadConfig({ ...TEST_ENV, ...fake.envFor() }) };
    });

    it('answers from the best passage, streamed, as model `extractive`, calling no provider', async () => {
      const { company } = await make.workspace();
      const bot = await botWithKnowledge(company, 'openai');
      const deltas: string[] = [];
      const reply = await generateReply(keyless, { chatbot: bot, question: 'Can items be returned for a refund?', history: [], onDelta: (d) => deltas.push(d) });
      assert.equal(reply.model, 'extractive');
      assert.match(reply.text, /returned within 30 days of delivery for a full refund/);
      assert.equal(deltas.join(''), reply.text);
      assert.ok(deltas.length > 1);
      assert.deepEqual(reply.sources, [{ title: 'Refund policy', url: '' }]);
      assert.deepEqual([reply.tokensIn, reply.tokensOut], [0, 0]);
      assert.equal(fake.requests.length, 0);
    });

    it('quotes the sentences holding the words retrieval matched, misspelt or derived ones included', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const content = 'Open Settings to change the theme. Sessions end after a day. To reset a password, choose Reset password in Settings. The President may veto a bill.';
      await trainDocument(server().ctx, bot, { type: 'text', title: 'Account', content });
      const typo = await generateReply(keyless, { chatbot: bot, question: 'how do I resett my pasword', history: [] });
      assert.equal(typo.text, 'To reset a password, choose Reset password in Settings.');
      const derived = await generateReply(keyless, { chatbot: bot, question: 'what are the presidential powers', history: [] });
      assert.equal(derived.text, 'The President may veto a bill.');
    });

    it('answers a Q&A match with its answer, and says so when nothing matches', async () => {
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      await trainDocument(server().ctx, bot, { type: 'qa', title: 'Do you ship abroad?', question: 'Do you ship abroad?', answer: 'Yes, to 40 countries.' });
      const qa = await generateReply(keyless, { chatbot: bot, question: 'do you ship abroad', history: [] });
      assert.equal(qa.text, 'Yes, to 40 countries.');
      const none = await generateReply(keyless, { chatbot: bot, question: 'What is the meaning of life?', history: [] });
      assert.deepEqual([none.text, none.sources], [NO_ANSWER, []]);
    });
  });

  describe('monthly allowance', () => {
    const fill = (company: Company, count: number, at = new Date()) =>
      UsageRecord.bulkCreate(Array.from({ length: count }, () => ({ companyId: company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'extractive', createdAt: at })));

    it('counts this calendar month\'s AI calls against the plan', async () => {
      const { company } = await make.workspace({ plan: 'free' });
      await fill(company, 99);
      await fill(company, 5, new Date(Date.UTC(2020, 0, 15))); // an old month never counts
      await assertAllowance(company); // 99 of 100: still allowed
      const allowance = await allowanceOf(company);
      assert.deepEqual([allowance.used, allowance.limit, allowance.percent], [99, 100, 99]);
    });

    it('refuses the call at the limit with 429 limit_reached and Retry-After until the month turns', async () => {
      const { company } = await make.workspace({ plan: 'free' });
      const now = new Date(Date.UTC(2030, 4, 31, 23, 59, 0));
      await fill(company, 100, now);
      await assert.rejects(assertAllowance(company, now), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.deepEqual([error.status, error.code], [429, 'limit_reached']);
        assert.match(error.message, /monthly allowance of 100 AI messages/);
        assert.equal(error.details.headers?.['Retry-After'], '60');
        return true;
      });
    });

    it('never limits an unlimited plan', async () => {
      const { company } = await make.workspace({ plan: 'enterprise' });
      await fill(company, 3);
      assert.deepEqual(await allowanceOf(company).then((a) => [a.used, a.limit, a.percent]), [3, null, null]);
    });
  });
});
