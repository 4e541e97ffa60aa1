import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import type { Language } from '../../src/domain/chatbots/languages';
import { updateChatbot } from '../../src/domain/chatbots/updateChatbot';
import { retrievePassages } from '../../src/domain/knowledge/retrieve';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { KnowledgeChunk, type Chatbot } from '../../src/models';
import { knowledgeLanguages } from '../../src/models/migrations/0013-knowledge-languages';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const train = async (bot: Chatbot, title: string, content: string) => {
  const { source, failure } = await trainDocument(server().ctx, bot, { type: 'text', title, content });
  assert.equal(failure, undefined);
  return source;
};

const speaking = async (language: string) => {
  const { company } = await make.workspace();
  const bot = await make.chatbot(company);
  await updateChatbot(bot, { branding: { language: language as Language } }, server().ctx.secrets);
  return bot;
};

describe('knowledge: retrieval in the knowledge\'s language, and words spelled alike', () => {
  it('parses a source in the chatbot\'s language when its settings fix one, whatever the text', async () => {
    const bot = await speaking('fr');
    const source = await train(bot, 'Livraison', 'Les colis sont livrés en trois jours ouvrables.');
    assert.equal(source.searchConfig, 'french');
    assert.deepEqual(
      (await KnowledgeChunk.findAll({ where: { sourceId: source.id } })).map((chunk) => chunk.searchConfig),
      ['french'],
    );
    // French stop words (sont, en, mon) are dropped; the stems meet: livrés / livré -> livr.
    const [hit] = await retrievePassages(bot.id, 'Quand mon colis sera-t-il livré ?');
    assert.equal(hit?.sourceTitle, 'Livraison');
    assert.deepEqual(await retrievePassages(bot.id, 'sont en mon'), [], 'French stop words alone find nothing');
  });

  it('uses unstemmed words for a language PostgreSQL has no configuration for', async () => {
    const bot = await speaking('ja');
    const source = await train(bot, 'Shipping', 'Parcels travel by sea.');
    assert.equal(source.searchConfig, 'simple');
    assert.equal((await retrievePassages(bot.id, 'parcels'))[0]?.sourceTitle, 'Shipping');
  });

  it('with `auto`, parses each source in the language it is written in, and a question in each', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const german = await train(bot, 'Rücksendung', 'Die Rücksendung ist innerhalb von dreißig Tagen kostenlos. Rücksendungen holt der Kurier ab.');
    const english = await train(bot, 'Returns', 'Returns are free within thirty days; the courier collects them from your door.');
    assert.deepEqual([german.searchConfig, english.searchConfig], ['german', 'english']);
    assert.equal((await retrievePassages(bot.id, 'Ist die Rücksendung kostenlos?'))[0]?.sourceTitle, 'Rücksendung');
    assert.equal((await retrievePassages(bot.id, 'Are returns free?'))[0]?.sourceTitle, 'Returns');
  });

  it('keeps English where no language can be told (a short text) and the chatbot fixes none', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    assert.equal((await train(bot, 'Hours', 'Open daily.')).searchConfig, 'english');
  });

  it('finds a passage through a misspelt or derived word, ranked below an exact match', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    await train(bot, 'Account', '# Password\nTo reset your password, open Settings and choose Reset password.');
    await train(bot, 'President', 'The President may veto a bill; Congress overrides the veto with two thirds of each House.');
    await train(bot, 'Presidential library', 'The presidential library opens at nine.');
    assert.equal((await retrievePassages(bot.id, 'how do I resett my pasword'))[0]?.sourceTitle, 'Account');
    const override = await retrievePassages(bot.id, 'who can override a presidential veto');
    assert.equal(override[0]?.sourceTitle, 'President', 'the passage with the question\'s other words wins');
    const library = await retrievePassages(bot.id, 'when does the presidential library open');
    assert.equal(library[0]?.sourceTitle, 'Presidential library', 'an exact word outweighs one spelled alike');
    assert.ok(library[0]!.rank > (library.find((p) => p.sourceTitle === 'President')?.rank ?? 0));
  });

  it('migration 0013 leaves what was trained before it as it was: same tsvectors, true term counts, still found', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    await train(bot, 'Refunds', '# Refunds\nRefunds are paid to the original card within five days.');
    const db = KnowledgeChunk.sequelize!;
    const vectors = () =>
      db.query<{ search: string }>('SELECT search::text AS search FROM knowledge_chunks WHERE chatbot_id = :bot ORDER BY id', { replacements: { bot: bot.id }, type: QueryTypes.SELECT });
    const drift = () =>
      db.query(
        `SELECT lexeme FROM (SELECT lexeme, count(*)::int AS chunks FROM knowledge_chunks, unnest(tsvector_to_array(search)) lexeme
                              WHERE chatbot_id = :bot GROUP BY lexeme) truth
           FULL JOIN (SELECT lexeme, chunks FROM knowledge_terms WHERE chatbot_id = :bot) kept USING (lexeme)
          WHERE truth.chunks IS DISTINCT FROM kept.chunks`,
        { replacements: { bot: bot.id }, type: QueryTypes.SELECT },
      );
    const after = await vectors();
    await knowledgeLanguages.down!({ name: knowledgeLanguages.name, context: db });
    try {
      assert.deepEqual(await vectors(), after, 'before 0013 (english only) the passage was parsed the same way');
    } finally {
      await knowledgeLanguages.up({ name: knowledgeLanguages.name, context: db });
    }
    assert.deepEqual(await vectors(), after);
    assert.deepEqual(await drift(), []);
    assert.equal((await retrievePassages(bot.id, 'when are refunds paid'))[0]?.sourceTitle, 'Refunds');
  });
});
