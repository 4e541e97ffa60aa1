import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { retrievePassages } from '../../src/domain/knowledge/retrieve';
import { trainDocument } from '../../src/domain/knowledge/trainDocument';
import { KnowledgeChunk, type Chatbot } from '../../src/models';
import { knowledgeRanked } from '../../src/models/migrations/0020-knowledge-ranked';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const train = async (bot: Chatbot, title: string, content: string) => {
  const { failure } = await trainDocument(server().ctx, bot, { type: 'text', title, content });
  assert.equal(failure, undefined);
};

const query = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
  KnowledgeChunk.sequelize!.query<T>(sql, { replacements, type: QueryTypes.SELECT });

interface Ranked {
  id: string;
  rank: number;
}

/** knowledge_ranked (migration 0020), called as retrieve.ts calls it. */
const ranked = (bot: Chatbot, match: string, exact: string | null, alike: string | null, most: number, best: number) =>
  query<Ranked>('SELECT id, rank FROM knowledge_ranked(:bot, CAST(:match AS tsquery), CAST(:exact AS tsquery), CAST(:alike AS tsquery), 0.5, :most, :best)', {
    bot: bot.id,
    match,
    exact,
    alike,
    most,
    best,
  });

/** The same ranking written out over every candidate, as retrieve.ts did before 0020. */
const expected = (bot: Chatbot, match: string, rank: string, best: number, values: Record<string, string> = {}) =>
  query<Ranked>(
    `SELECT id, CAST(${rank} AS double precision) AS rank FROM knowledge_chunks WHERE chatbot_id = :bot AND search @@ CAST(:match AS tsquery) ORDER BY rank DESC, id LIMIT :best`,
    { bot: bot.id, match, best, ...values },
  );

const HELP = [
  '# Refunds\nRefunds are paid to the original card within five days. A refund for a gift card is paid as store credit.',
  '# Returns\nReturns are free within thirty days. Refunds for returns are paid once the parcel arrives.',
  '# Shipping\nParcels ship in two days. Express parcels ship the same day.',
  '# Payment\nWe take every card. A declined card is never charged; the refund of a double charge is automatic.',
].join('\n\n');

describe('knowledge: candidates ranked in the database (knowledge_ranked, migration 0020)', () => {
  it("returns the chatbot's best passages ranked as retrieval ranked them before (rank, then id), at most `best`", async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const other = await make.chatbot(company);
    await train(bot, 'Help', HELP);
    await train(other, 'Refunds elsewhere', 'Refunds are paid in store credit. Refund refund refund.');

    const exactOnly = await ranked(bot, "'refund'", "'refund' | 'card' | 'parcel'", null, 3_000, 3);
    assert.deepEqual(exactOnly, await expected(bot, "'refund'", "ts_rank(search, CAST(:exact AS tsquery), 1)", 3, { exact: "'refund' | 'card' | 'parcel'" }));
    assert.equal(exactOnly.length, 3);
    const mine = new Set((await KnowledgeChunk.findAll({ where: { chatbotId: bot.id } })).map((chunk) => Number(chunk.id)));
    assert.ok(exactOnly.every((row) => mine.has(Number(row.id))), "only the chatbot's own passages");

    const both = await ranked(bot, "'refund' | 'shipe'", "'refund'", "'ship'", 3_000, 5);
    assert.deepEqual(
      both,
      await expected(bot, "'refund' | 'shipe'", 'ts_rank(search, CAST(:exact AS tsquery), 1) + 0.5 * ts_rank(search, CAST(:alike AS tsquery), 1)', 5, { exact: "'refund'", alike: "'ship'" }),
    );
    const alikeOnly = await ranked(bot, "'ship'", null, "'ship'", 3_000, 5);
    assert.deepEqual(alikeOnly, await expected(bot, "'ship'", '0.5 * ts_rank(search, CAST(:alike AS tsquery), 1)', 5, { alike: "'ship'" }));
    assert.equal(alikeOnly.length, 1);

    assert.equal((await ranked(bot, "'refund'", "'refund'", null, 1, 5)).length, 1, 'no more than `most` candidates are ranked');
    assert.deepEqual(await ranked(bot, "'nonexist'", "'nonexist'", null, 3_000, 5), []);
    const [setting] = await query<{ enable_seqscan: string }>('SHOW enable_seqscan');
    assert.equal(setting?.enable_seqscan, 'on', 'the function sets it for its own statement only');
  });

  it("keeps each passage's tsvector in its row and retrieval returns what the ranking says", async () => {
    // Applied here, not only read: knowledgeLanguages.test.ts re-runs 0013, which re-creates the column with the default storage.
    await knowledgeRanked.up({ name: knowledgeRanked.name, context: KnowledgeChunk.sequelize! });
    const [column] = await query<{ storage: string }>(
      "SELECT attstorage AS storage FROM pg_attribute WHERE attrelid = 'knowledge_chunks'::regclass AND attname = 'search'",
    );
    assert.equal(column?.storage, 'm', 'storage MAIN: moved out of the row only when the row could not fit a page');

    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    await train(bot, 'Help', HELP);
    const passages = await retrievePassages(bot.id, 'How are refunds paid to my card?', 2);
    assert.deepEqual(
      passages.map((passage) => [passage.title, passage.sourceTitle, passage.sourceType]),
      [
        ['Help › Refunds', 'Help', 'text'],
        ['Help › Payment', 'Help', 'text'],
      ],
    );
    assert.ok(passages[0]!.rank > passages[1]!.rank);
    assert.equal(typeof passages[0]!.chunkId, 'number');
    assert.match(passages[0]!.content, /original card/);
  });
});
