import { strict as assert } from 'node:assert';
import { parseTagAnswer } from '../../src/domain/assist/parseTagAnswer';
import { suggestTags, tagSuggestionsOf } from '../../src/domain/assist/suggestTags';
import { createTag } from '../../src/domain/catalogue/createTag';
import { Conversation, ConversationTag, TagSuggestion, UsageRecord, type Chatbot, type Company, type MessageRole, type Tag } from '../../src/models';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { request } from '../support/http';

interface Catalogue {
  billing: Tag;
  shipping: Tag;
  refund: Tag;
}

/** A keyed workspace with a three-tag catalogue and a conversation where the visitor has spoken. */
async function tenant(options: { key?: boolean; messages?: Array<[MessageRole, string]> } = {}) {
  const t = await agentTenant();
  if (options.key !== false) await make.providerKey(t.company, t.bot.provider);
  const tags: Catalogue = {
    billing: await createTag(t.company.id, { name: 'Billing' }),
    shipping: await createTag(t.company.id, { name: 'Shipping' }),
    refund: await createTag(t.company.id, { name: 'Refund' }),
  };
  const conversation = await conversationWith(t.bot, options.messages ?? [['visitor', 'I was charged twice and want my money back.'], ['assistant', 'Let me check.']]);
  return { ...t, tags, conversation };
}

const conversationWith = (bot: Chatbot, messages: Array<[MessageRole, string]>) => make.conversation(bot, { messages });

const answer = (tags: unknown) => JSON.stringify({ tags });

const storedFor = async (conversation: Conversation) =>
  (await TagSuggestion.findAll({ where: { conversationId: conversation.id }, order: [['confidence', 'DESC']] })).map((row) => ({
    tagId: row.tagId,
    confidence: Math.round(row.confidence * 100) / 100,
    reason: row.reason,
  }));

const usageKinds = async (company: Company) =>
  (await UsageRecord.findAll({ where: { companyId: company.id }, order: [['id', 'ASC']] })).map((row) => row.kind);

/** What the summary route does: the model's answer, kept by a turn of the conversation's actor. */
async function suggestAndStore(conversation: Conversation, options: { userId?: number } = {}) {
  const suggestions = await suggestTags(server().ctx, conversation.id, options);
  if (suggestions) await server().actors.ask('conversation', conversation.publicId, { type: 'replaceSuggestedTags', suggestions });
  return suggestions;
}

/** The chat turns of an OpenAI-protocol request, system prompt first. */
const turnsOf = (index: number): Array<{ role: string; content: string }> => fakeLlm().requests[index]!.body.messages;

describe('AI tag suggestions', () => {
  afterEach(() => fakeLlm().reset());

  describe('parseTagAnswer', () => {
    const catalogue = [
      { id: 1, name: 'Billing' },
      { id: 2, name: 'Shipping' },
      { id: 3, name: 'Refund' },
    ];

    it('keeps catalogue tags only, matched by id or name, with clamped confidence and capped reasons', () => {
      const parsed = parseTagAnswer(
        answer([
          { id: 1, confidence: 1.7, reason: `  ${'very long '.repeat(80)}` },
          { id: 99, confidence: 0.9, reason: 'unknown id' },
          { name: 'refund', confidence: '0.456', reason: 'by name' },
          { name: 'Complaints', confidence: 0.9 },
          { id: '2', confidence: -3, reason: 7 },
          { id: 3, confidence: 0.2, reason: 'lower duplicate' },
          'not an object',
        ]),
        catalogue,
      );
      assert.ok(parsed);
      assert.deepEqual(
        parsed.map(({ tagId, confidence }) => [tagId, confidence]),
        [
          [1, 1],
          [3, 0.46],
          [2, 0],
        ],
      );
      assert.equal(parsed[0]!.reason.length, 500);
      assert.ok(parsed[0]!.reason.startsWith('very long very long'));
      assert.equal(parsed[1]!.reason, 'by name');
      assert.equal(parsed[2]!.reason, '');
    });

    it('finds the list in a code fence or between prose, accepts a bare array, and defaults a missing confidence', () => {
      assert.deepEqual(parseTagAnswer('Sure!\n```json\n{"tags": [{"id": 2}]}\n```', catalogue), [{ tagId: 2, confidence: 0.5, reason: '' }]);
      assert.deepEqual(parseTagAnswer('Here you go: {"tags": [{"id": 3, "confidence": 0.8}]} Hope it helps.', catalogue), [{ tagId: 3, confidence: 0.8, reason: '' }]);
      assert.deepEqual(parseTagAnswer('[{"id": 1, "confidence": 0.3, "reason": "x"}]', catalogue), [{ tagId: 1, confidence: 0.3, reason: 'x' }]);
      assert.deepEqual(parseTagAnswer('{"tags": []}', catalogue), []);
    });

    it('caps the list at five, most confident first', () => {
      const many = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, name: `Tag ${i + 1}` }));
      const parsed = parseTagAnswer(answer(many.map((tag) => ({ id: tag.id, confidence: tag.id / 10 }))), many);
      assert.deepEqual(parsed?.map((item) => item.tagId), [8, 7, 6, 5, 4]);
    });

    it('answers null when there is no tag list at all', () => {
      for (const text of ['Billing and Refund fit best.', '', '{"labels": [1]}', '{"tags": "Billing"}', '{broken']) {
        assert.equal(parseTagAnswer(text, catalogue), null, text);
      }
    });
  });

  describe('suggestTags', () => {
    it('asks the chatbot\'s model to choose from the catalogue, stores the answer and records usage', async () => {
      const t = await tenant();
      await t.conversation.update({ summary: 'Visitor was charged twice.' });
      fakeLlm().script({
        reply: answer([
          { id: t.tags.billing.id, confidence: 0.92, reason: 'Charged twice.' },
          { name: 'refund', confidence: 0.7, reason: 'Wants the money back.' },
          { id: 999_999, confidence: 1, reason: 'Not in the catalogue.' },
        ]),
      });
      const stored = await suggestAndStore(t.conversation, { userId: t.agent.id });
      assert.equal(stored?.length, 2);

      assert.equal(fakeLlm().requests.length, 1);
      const [system, user] = turnsOf(0);
      assert.equal(fakeLlm().requests[0]!.body.model, t.bot.model);
      for (const tag of Object.values(t.tags)) assert.ok(system!.content.includes(`- id ${tag.id}: ${tag.name}`), tag.name);
      assert.match(system!.content, /Answer with JSON only/);
      assert.ok(user!.content.includes('Summary:\nVisitor was charged twice.'));
      assert.ok(user!.content.includes('Visitor: I was charged twice and want my money back.\nAI assistant: Let me check.'));

      assert.deepEqual(await storedFor(t.conversation), [
        { tagId: t.tags.billing.id, confidence: 0.92, reason: 'Charged twice.' },
        { tagId: t.tags.refund.id, confidence: 0.7, reason: 'Wants the money back.' },
      ]);
      assert.deepEqual(await tagSuggestionsOf(t.conversation.id), [
        { id: t.tags.billing.id, name: 'Billing', confidence: 0.92, reason: 'Charged twice.' },
        { id: t.tags.refund.id, name: 'Refund', confidence: 0.7, reason: 'Wants the money back.' },
      ]);
      const [usage] = await UsageRecord.findAll({ where: { companyId: t.company.id } });
      assert.deepEqual([usage?.kind, usage?.conversationId, usage?.userId, usage?.chatbotId], ['tagging', t.conversation.id, t.agent.id, t.bot.id]);
    });

    it('replaces earlier suggestions, offers only unattached tags and lists only unattached ones', async () => {
      const t = await tenant();
      fakeLlm().script({ reply: answer([{ id: t.tags.billing.id, confidence: 0.4 }, { id: t.tags.shipping.id, confidence: 0.6 }]) });
      await suggestAndStore(t.conversation);
      fakeLlm().script({ reply: answer([{ id: t.tags.billing.id, confidence: 0.9, reason: 'Second look.' }, { id: t.tags.refund.id, confidence: 0.3 }]) });
      await suggestAndStore(t.conversation);
      assert.deepEqual(await storedFor(t.conversation), [
        { tagId: t.tags.billing.id, confidence: 0.9, reason: 'Second look.' },
        { tagId: t.tags.refund.id, confidence: 0.3, reason: '' },
      ]);

      await ConversationTag.create({ conversationId: t.conversation.id, tagId: t.tags.billing.id, companyId: t.company.id, source: 'agent' });
      assert.deepEqual((await tagSuggestionsOf(t.conversation.id)).map((item) => item.name), ['Refund'], 'an attached tag is no longer suggested');

      fakeLlm().script({ reply: answer([]) });
      await suggestAndStore(t.conversation);
      const offered = turnsOf(2)[0]!.content;
      assert.ok(!offered.includes(`- id ${t.tags.billing.id}:`), 'the attached tag is not offered');
      assert.ok(offered.includes(`- id ${t.tags.refund.id}: Refund`));
      assert.deepEqual(await storedFor(t.conversation), [], 'an empty answer clears the suggestions');
    });

    it('keeps earlier suggestions when the answer is not a tag list (the call still counts)', async () => {
      const t = await tenant();
      fakeLlm().script({ reply: answer([{ id: t.tags.shipping.id, confidence: 0.8 }]) });
      await suggestAndStore(t.conversation);
      fakeLlm().script({ reply: 'I think Shipping fits.' });
      assert.equal(await suggestAndStore(t.conversation), null);
      assert.deepEqual((await storedFor(t.conversation)).map((row) => row.tagId), [t.tags.shipping.id]);
      assert.deepEqual(await usageKinds(t.company), ['tagging', 'tagging']);
    });

    it('skips without a call when there are no tags, no visitor message, no key, or the allowance is spent', async () => {
      const noTags = await agentTenant();
      await make.providerKey(noTags.company, noTags.bot.provider);
      const untagged = await conversationWith(noTags.bot, [['visitor', 'Hello']]);
      assert.equal(await suggestAndStore(untagged), null);

      const silent = await tenant({ messages: [['assistant', 'Welcome!'], ['agent', 'Anything I can do?']] });
      assert.equal(await suggestAndStore(silent.conversation), null);

      const keyless = await tenant({ key: false });
      assert.equal(await suggestAndStore(keyless.conversation), null);

      const allTagged = await tenant();
      for (const tag of Object.values(allTagged.tags)) {
        await ConversationTag.create({ conversationId: allTagged.conversation.id, tagId: tag.id, companyId: allTagged.company.id });
      }
      assert.equal(await suggestAndStore(allTagged.conversation), null);

      const { company, owner } = await make.workspace({ plan: 'free' });
      const bot = await make.chatbot(company);
      await make.providerKey(company, bot.provider);
      await createTag(company.id, { name: 'Billing' });
      const spent = await conversationWith(bot, [['visitor', 'Hello']]);
      await UsageRecord.bulkCreate(Array.from({ length: 100 }, () => ({ companyId: company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'm' })));
      assert.equal(await suggestAndStore(spent, { userId: owner.id }), null);

      assert.equal(fakeLlm().requests.length, 0);
      assert.equal(await UsageRecord.count({ where: { companyId: company.id } }), 100);
      assert.equal(await TagSuggestion.count({ where: { conversationId: [untagged.id, silent.conversation.id, keyless.conversation.id, spent.id] } }), 0);
    });
  });

  describe('after a summary', () => {
    const summarise = (t: Awaited<ReturnType<typeof tenant>>) =>
      request('POST', `/api/agent/conversations/${t.conversation.publicId}/summary`, { token: t.token });

    it('refreshes the tag suggestions right after the summary is stored', async () => {
      const t = await tenant();
      // The fake answers every call alike, so the summary is this JSON text too.
      const reply = answer([{ id: t.tags.billing.id, confidence: 0.8, reason: 'Double charge.' }]);
      fakeLlm().script({ reply });
      const summary = await summarise(t);
      assert.equal(summary.status, 200, JSON.stringify(summary.body));
      assert.equal(summary.body.summary, reply);

      assert.equal(fakeLlm().requests.length, 2);
      assert.match(turnsOf(0)[0]!.content, /summarise a website support chat/);
      assert.match(turnsOf(1)[0]!.content, /label website support chats/);
      assert.ok(turnsOf(1)[1]!.content.includes(`Summary:\n${reply}`), 'tagging sees the summary just stored');
      assert.deepEqual(await usageKinds(t.company), ['summary', 'tagging']);
      assert.deepEqual(await tagSuggestionsOf(t.conversation.id), [{ id: t.tags.billing.id, name: 'Billing', confidence: 0.8, reason: 'Double charge.' }]);
    });

    it('still answers the summary when tagging fails', async () => {
      const t = await tenant();
      fakeLlm().script({ reply: 'The visitor was charged twice.' });
      // Fail from the second call on (the tagging call): the fake reads its script right after recording a request.
      const requests = fakeLlm().requests;
      const record = requests.push.bind(requests);
      requests.push = (...items) => {
        const length = record(...items);
        if (length === 2) fakeLlm().script({ fail: { status: 400 } });
        return length;
      };
      try {
        const summary = await summarise(t);
        assert.equal(summary.status, 200, JSON.stringify(summary.body));
        assert.equal(summary.body.summary, 'The visitor was charged twice.');
      } finally {
        delete (requests as { push?: unknown }).push;
      }
      assert.equal(fakeLlm().requests.length, 2, 'the tagging call was made and failed');
      assert.equal((await Conversation.findByPk(t.conversation.id))?.summary, 'The visitor was charged twice.');
      assert.deepEqual(await usageKinds(t.company), ['summary']);
      assert.equal(await TagSuggestion.count({ where: { conversationId: t.conversation.id } }), 0);
    });

    it('still answers the summary when the tagging answer is unreadable', async () => {
      const t = await tenant();
      fakeLlm().script({ reply: 'The visitor was charged twice.' });
      const summary = await summarise(t);
      assert.equal(summary.status, 200);
      assert.deepEqual(await usageKinds(t.company), ['summary', 'tagging']);
      assert.equal(await TagSuggestion.count({ where: { conversationId: t.conversation.id } }), 0);
    });

    it('skips tagging when the summary used the last message of the allowance', async () => {
      const { company, owner } = await make.workspace({ plan: 'free' });
      const bot = await make.chatbot(company);
      await make.providerKey(company, bot.provider);
      await createTag(company.id, { name: 'Billing' });
      const conversation = await conversationWith(bot, [['visitor', 'I was charged twice.']]);
      await UsageRecord.bulkCreate(Array.from({ length: 99 }, () => ({ companyId: company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'm' })));
      fakeLlm().script({ reply: 'Charged twice.' });
      const summary = await request('POST', `/api/agent/conversations/${conversation.publicId}/summary`, { token: await make.token(owner, 'agent') });
      assert.equal(summary.status, 200, JSON.stringify(summary.body));
      assert.equal(fakeLlm().requests.length, 1);
      assert.equal(await UsageRecord.count({ where: { companyId: company.id } }), 100);
    });
  });
});
