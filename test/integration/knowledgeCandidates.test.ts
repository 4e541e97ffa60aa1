import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { retrievePassages } from '../../src/domain/knowledge/retrieve';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { KnowledgeChunk, type Chatbot } from '../../src/models';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const train = async (bot: Chatbot, title: string, content: string) => {
  const { failure } = await trainDocument(server().ctx, bot, { type: 'text', title, content });
  assert.equal(failure, undefined);
};

/** Ids knowledge_candidates (migration 0019) returns, with the session forbidding nothing. */
const candidates = async (bot: Chatbot, query: string, most: number) =>
  (
    await KnowledgeChunk.sequelize!.query<{ id: string }>('SELECT id FROM knowledge_candidates(:bot, CAST(:query AS tsquery), :most) ORDER BY id', {
      replacements: { bot: bot.id, query, most },
      type: QueryTypes.SELECT,
    })
  ).map((row) => Number(row.id));

describe('knowledge: the candidates retrieval ranks (knowledge_candidates)', () => {
  it("returns only the chatbot's passages matching the query, at most as many as asked, and leaves the session's planner settings alone", async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const other = await make.chatbot(company);
    await train(bot, 'Help', '# Refunds\nRefunds are paid to the original card.\n\n# Returns\nReturns are free within thirty days.\n\n# Shipping\nParcels ship in two days.');
    await train(other, 'Refunds elsewhere', 'Refunds are paid in store credit.');
    const mine = await KnowledgeChunk.findAll({ where: { chatbotId: bot.id }, order: [['id', 'ASC']] });
    const matching = mine.filter((chunk) => /Refunds|Returns/.test(chunk.content)).map((chunk) => Number(chunk.id));

    assert.deepEqual(await candidates(bot, "'refund' | 'return'", 10), matching);
    assert.equal((await candidates(bot, "'refund' | 'return'", 1)).length, 1);
    assert.deepEqual(await candidates(bot, "'nonexist'", 10), []);
    const [setting] = await KnowledgeChunk.sequelize!.query<{ enable_seqscan: string }>('SHOW enable_seqscan', { type: QueryTypes.SELECT });
    assert.equal(setting?.enable_seqscan, 'on', 'the function sets it for its own statement only');
    assert.equal((await retrievePassages(bot.id, 'how are refunds paid'))[0]?.title, 'Help › Refunds');
  });
});
