import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../../config/env';
import { resolveEndpoint } from '../../src/ai/endpoint';
import { retryPolicy } from '../../src/ai/providers/http';
import { generateReply } from '../../src/ai/reply';
import { retrieveByMeaning } from '../../src/domain/knowledge/meaning';
import { indexSource } from '../../src/domain/knowledge/indexSource';
import { retrievePassages } from '../../src/domain/knowledge/retrieve';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import type { AppContext } from '../../src/context';
import type { Chatbot, Company } from '../../src/models';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm';
import { TEST_ENV } from '../support/env';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const KEY = 'sk-embeddings-0000';
const QUESTION = 'Can I carry a gun?';

/**
 * Three passages the question's words rank Gun care, Arms, Our shops (checked in the first test),
 * and vectors that rank them Arms, Our shops, Gun care: fused, Arms comes first. The vectors are
 * scripted, not a model's: what is tested is that the provider's vectors are stored and used.
 */
const PASSAGES = [
  { title: 'Gun care', content: 'If you carry a gun, oil the gun every week.' },
  { title: 'Arms', content: 'Every citizen may carry arms.' },
  { title: 'Our shops', content: 'We run two shops in the old town with a large warehouse behind them, open every weekday, and we carry many brands.' },
];
function scriptedVector(text: string): number[] {
  if (text === QUESTION || text.startsWith('Arms')) return [1, 0];
  if (text.startsWith('Our shops')) return [0.6, 0.8];
  return [0, 1];
}

describe('Knowledge retrieval by meaning (provider embeddings fused with full text)', () => {
  let fake: FakeLlm;
  let withKey: AppContext;
  let unreachable: AppContext;

  before(async () => {
    fake = await startFakeLlm();
    const ctx = server().ctx;
    withKey = { ...ctx, config: loadConfig({ ...TEST_ENV, ...fake.envFor(['openai']), PROVIDER_OPENAI_API_KEY: KEY, PROVIDER_TIMEOUT_MS: '2000' }) };
    // Nothing listens on port 9 (discard) on a test machine: the connection is refused at once.
    unreachable = { ...ctx, config: loadConfig({ ...TEST_ENV, PROVIDER_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', PROVIDER_OPENAI_API_KEY: KEY, PROVIDER_TIMEOUT_MS: '2000' }) };
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const productionDelays = retryPolicy.delaysMs;
  afterEach(() => {
    retryPolicy.delaysMs = productionDelays;
  });

  async function openaiBot(company?: Company): Promise<Chatbot> {
    const bot = await make.chatbot(company ?? (await make.workspace()).company);
    await bot.update({ provider: 'openai', model: 'openai-test-model' });
    return bot;
  }

  async function train(deps: AppContext, bot: Chatbot): Promise<void> {
    for (const passage of PASSAGES) {
      const { failure } = await trainDocument(deps, bot, { type: 'text', ...passage });
      assert.equal(failure, undefined);
    }
  }

  async function stored(bot: Chatbot): Promise<Array<{ title: string; bytes: number | null; model: string | null }>> {
    return server().ctx.db.sequelize.query(
      `SELECT title, octet_length(embedding) AS bytes, embedding_model AS model FROM knowledge_chunks WHERE chatbot_id = :id ORDER BY id`,
      { replacements: { id: bot.id }, type: QueryTypes.SELECT },
    );
  }

  it('stores a vector per passage through POST /v1/embeddings when a key exists, and none without one', async () => {
    fake.script({ embed: scriptedVector });
    const bot = await openaiBot();
    await train(withKey, bot);
    const calls = fake.requests.filter((request) => request.path === '/v1/embeddings');
    assert.equal(calls.length, PASSAGES.length, 'one request per source (batched passages)');
    assert.equal(calls[0]!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(calls[0]!.body.model, 'text-embedding-3-small');
    assert.deepEqual(calls[0]!.body.input, ['Gun care\n\nIf you carry a gun, oil the gun every week.']);
    assert.deepEqual(await stored(bot), PASSAGES.map(({ title }) => ({ title, bytes: 2 * 4, model: 'text-embedding-3-small' })));

    // The premise of the fusion tests: by their words alone the passages rank Gun care, Arms, Our shops.
    assert.deepEqual((await retrievePassages(bot.id, QUESTION, 5)).map((p) => p.title), ['Gun care', 'Arms', 'Our shops']);

    fake.reset();
    const keyless = await openaiBot();
    await train(server().ctx, keyless);
    const claude = await openaiBot();
    await claude.update({ provider: 'claude' });
    await train({ ...withKey, config: loadConfig({ ...TEST_ENV, ...fake.envFor(), PROVIDER_CLAUDE_API_KEY: KEY }) }, claude);
    assert.equal(fake.requests.length, 0, 'no key, or a provider without embeddings: no call');
    assert.ok((await stored(keyless)).every((row) => row.bytes === null));
    assert.ok((await stored(claude)).every((row) => row.bytes === null));
  });

  it('ranks a reply\'s passages by the fusion of words and meaning, embedding the question once', async () => {
    fake.script({ embed: scriptedVector, reply: 'Yes.' });
    const bot = await openaiBot();
    await train(withKey, bot);
    fake.reset();
    fake.script({ embed: scriptedVector, reply: 'Yes.' });

    const reply = await generateReply(withKey, { chatbot: bot, question: QUESTION, history: [] });
    assert.deepEqual(reply.sources.map((source) => source.title), ['Arms', 'Gun care', 'Our shops']);
    const [embedding, chat] = fake.requests;
    assert.deepEqual([embedding!.path, embedding!.body.input], ['/v1/embeddings', [QUESTION]]);
    assert.equal(chat!.path, '/v1/chat/completions');
    assert.ok(chat!.body.messages[0].content.indexOf('Every citizen may carry arms') < chat!.body.messages[0].content.indexOf('oil the gun'));

    // Without a key the same passages rank by their words, and nothing is called.
    fake.reset();
    const lexical = await retrieveByMeaning(server().ctx, null, bot.id, QUESTION, 5);
    assert.deepEqual(lexical.map((p) => p.title), ['Gun care', 'Arms', 'Our shops']);
    assert.equal(fake.requests.length, 0);
  });

  it('falls back to the words alone when the embeddings call fails or the provider is down, never failing the reply', async () => {
    retryPolicy.delaysMs = [];
    fake.script({ embed: scriptedVector });
    const bot = await openaiBot();
    await train(withKey, bot);

    fake.script({ reply: 'Yes.', embed: scriptedVector, fail: { status: 500, times: 1 } });
    const reply = await generateReply(withKey, { chatbot: bot, question: QUESTION, history: [] });
    assert.equal(reply.text, 'Yes.');
    assert.deepEqual(reply.sources.map((source) => source.title), ['Gun care', 'Arms', 'Our shops']);

    // An answer that is not a vector is refused (bad_response) the same way.
    fake.script({ reply: 'Yes.', embed: () => [] });
    const unreadable = await generateReply(withKey, { chatbot: bot, question: QUESTION, history: [] });
    assert.deepEqual(unreadable.sources.map((source) => source.title), ['Gun care', 'Arms', 'Our shops']);

    const endpoint = await resolveEndpoint(unreachable, bot.companyId, 'openai');
    const down = await retrieveByMeaning(unreachable, endpoint, bot.id, QUESTION, 5);
    assert.deepEqual(down.map((p) => p.title), ['Gun care', 'Arms', 'Our shops']);

    // Indexing while the provider is down still makes the passages searchable, by their words.
    const later = await openaiBot();
    await train(unreachable, later);
    assert.ok((await stored(later)).every((row) => row.bytes === null));
    assert.deepEqual((await retrieveByMeaning(unreachable, endpoint, later.id, QUESTION, 5)).map((p) => p.title), ['Gun care', 'Arms', 'Our shops']);
  });

  it('never ranks another workspace\'s passages, however close their vectors', async () => {
    // The other workspace's passages all point exactly where the question does.
    fake.script({ embed: (text) => (text.startsWith('Other') ? [1, 0] : scriptedVector(text)) });
    const ours = await openaiBot();
    await train(withKey, ours);
    const theirs = await openaiBot();
    for (const { title, content } of PASSAGES) await trainDocument(withKey, theirs, { type: 'text', title: `Other ${title}`, content });

    const endpoint = await resolveEndpoint(withKey, ours.companyId, 'openai');
    const passages = await retrieveByMeaning(withKey, endpoint, ours.id, QUESTION, 10);
    assert.deepEqual(passages.map((p) => p.title), ['Arms', 'Gun care', 'Our shops']);
    const ourSources = new Set((await stored(ours)).map((row) => row.title));
    assert.ok(passages.every((p) => ourSources.has(p.title)));
  });

  it('leaves every passage of a source embedded when two re-indexes of it run at once', async () => {
    fake.script({ embed: scriptedVector });
    const bot = await openaiBot();
    const { source } = await trainDocument(withKey, bot, { type: 'text', title: 'Gun care', content: '# Cleaning\nOil the gun every week.\n\n# Storage\nKeep the gun locked away.' });
    await Promise.all([indexSource(withKey, source.id, { finalAttempt: true }), indexSource(withKey, source.id, { finalAttempt: true })]);
    const rows = await stored(bot);
    assert.equal(rows.length, 2, 'one index, not two');
    assert.ok(rows.every((row) => row.bytes === 8 && row.model === 'text-embedding-3-small'));
  });
});
