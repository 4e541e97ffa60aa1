import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import { Batched } from '../../src/db/batched';
import { readArrival } from '../../src/domain/visitors/arrivalRead';
import { beatFacts as factsAlone, type BeatFacts } from '../../src/domain/visitors/beatFacts';
import { blankVisitor, insertVisitor, loadVisitor, type VisitorRecord } from '../../src/domain/visitors/records';
import { Message } from '../../src/models';
import { TEST_DATABASE_URL } from '../support/env';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { request } from '../support/http';

const run = randomBytes(3).toString('hex');
const keyOf = (i: number) => `arrival-${run}-${i}`;
const ipOf = (i: number) => `10.77.${(i >> 8) & 255}.${i & 255}`;

async function site() {
  const { company } = await make.workspace();
  return { company, bot: await make.chatbot(company) };
}

const newVisitor = (companyId: number, chatbotId: number, key: string, page: string): VisitorRecord => ({
  ...blankVisitor(companyId, key),
  chatbotId,
  page,
  entryPage: page,
  pageViews: 1,
  firstSeenAt: Date.now(),
  lastSeenAt: Date.now(),
});

/**
 * The facts of a beat, read both ways: alone (`beatFacts`, a later first beat on a chatbot) and with
 * the visitor's row at activation (`readArrival`, whose row must be `loadVisitor`'s). The same answers.
 */
async function beatFacts(sequelize: Sequelize, owner: { companyId: number; chatbotId: number; visitorKey: string }, named: string | undefined): Promise<BeatFacts> {
  const [alone, together, row] = await Promise.all([factsAlone(sequelize, owner, named), readArrival(sequelize, owner, named), loadVisitor(sequelize, owner.companyId, owner.visitorKey)]);
  assert.deepEqual(together.facts, alone, 'read with the row');
  assert.deepEqual(together.record, row);
  return alone;
}

async function rowsOf(sequelize: Sequelize, companyId: number) {
  return sequelize.query<{ visitor_key: string; id: number; views: number }>(
    `SELECT v.visitor_key, v.id, (SELECT count(*) FROM page_views p WHERE p.visitor_id = v.id) AS views
       FROM visitors v WHERE v.company_id = $1 ORDER BY v.visitor_key`,
    { bind: [companyId], type: QueryTypes.SELECT },
  );
}

describe('visitors arriving together (first heartbeats share their statements)', () => {
  it('many concurrent first heartbeats: every one answered, every visitor has exactly one row and one entry page view', async function () {
    this.timeout(30_000);
    const { company, bot } = await site();
    const visitors = 150;
    // Some visitors send their first beat twice at once (two tabs): still one row and one entry page view.
    const twice = 10;
    const beats = [...Array.from({ length: visitors }, (_, i) => i), ...Array.from({ length: twice }, (_, i) => i)];
    const replies = await Promise.all(
      beats.map((i) =>
        request('POST', `/widget/${bot.publicKey}/heartbeat`, {
          body: { visitor_id: keyOf(i), url: `https://shop.example/landing/${i}` },
          headers: { 'X-Forwarded-For': ipOf(i) },
        }),
      ),
    );
    assert.deepEqual(replies.filter((reply) => reply.status !== 200).map((reply) => reply.body), []);
    // No waiting: a first beat is answered only once its row is written.
    const rows = await rowsOf(server().ctx.db.sequelize, company.id);
    assert.equal(rows.length, visitors);
    assert.deepEqual(rows.map((row) => row.visitor_key).sort(), Array.from({ length: visitors }, (_, i) => keyOf(i)).sort());
    assert.deepEqual(rows.filter((row) => row.views !== 1), [], 'one entry page view each');
  });

  it('two nodes (two connection pools) writing the same new visitors at once agree on one row each', async function () {
    this.timeout(30_000);
    const { company, bot } = await site();
    // Its own pool, as another node has (the models stay bound to the test server's).
    const other = new Sequelize(TEST_DATABASE_URL, { dialect: 'postgres', logging: false });
    try {
      const keys = Array.from({ length: 60 }, (_, i) => `${keyOf(i)}-both`);
      const here = server().ctx.db.sequelize;
      const [mine, theirs] = await Promise.all([
        Promise.all(keys.map((key) => insertVisitor(here, newVisitor(company.id, bot.id, key, 'https://shop.example/')))),
        Promise.all(keys.map((key) => insertVisitor(other, newVisitor(company.id, bot.id, key, 'https://shop.example/')))),
      ]);
      assert.deepEqual(mine, theirs, 'both writers got the same id for each visitor');
      assert.equal(new Set(mine).size, keys.length);
      const rows = await rowsOf(here, company.id);
      assert.equal(rows.length, keys.length);
      assert.deepEqual(new Set(rows.map((row) => row.id)), new Set(mine));
      const loaded = await Promise.all(keys.map((key) => loadVisitor(other, company.id, key)));
      assert.deepEqual(loaded.map((v) => v.id), mine, 'a batched load finds each row again');
    } finally {
      await other.close();
    }
  });

  it('one visitor that cannot be written (its workspace is gone) fails alone, not the arrivals beside it', async () => {
    const { company, bot } = await site();
    const sequelize = server().ctx.db.sequelize;
    const good = Array.from({ length: 5 }, (_, i) => insertVisitor(sequelize, newVisitor(company.id, bot.id, `${keyOf(i)}-good`, 'https://shop.example/')));
    const bad = insertVisitor(sequelize, newVisitor(2_000_000_000, bot.id, `${keyOf(0)}-orphan`, 'https://shop.example/'));
    const outcomes = await Promise.allSettled([...good, bad]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    assert.equal((await rowsOf(sequelize, company.id)).length, 5);
  });

  it("a first beat's facts (block, open conversation, held messages, ownership) match what the database holds", async () => {
    const { company, bot } = await site();
    const sequelize = server().ctx.db.sequelize;
    const key = `${keyOf(0)}-facts`;
    const owner = { companyId: company.id, chatbotId: bot.id, visitorKey: key };
    const none = await beatFacts(sequelize, owner, undefined);
    assert.deepEqual(none, { blocked: false, latestOpen: null, held: false, owns: false });

    await insertVisitor(sequelize, { ...newVisitor(company.id, bot.id, key, 'https://shop.example/facts'), userAgent: 'Facts/1.0', country: 'DE', timezone: 'Europe/Berlin' });
    const conversation = await make.conversation(bot, { visitorKey: key });
    await Message.create({ companyId: company.id, conversationId: conversation.id, role: 'agent', content: 'Still there?' });
    // Asked together: one statement answers both, each with its own facts.
    const [open, stranger] = await Promise.all([
      beatFacts(sequelize, owner, conversation.publicId),
      beatFacts(sequelize, { ...owner, visitorKey: `${key}-other` }, conversation.publicId),
    ]);
    assert.deepEqual(open, { blocked: false, latestOpen: conversation.publicId, held: true, owns: true });
    assert.deepEqual(stranger, { blocked: false, latestOpen: null, held: false, owns: false });
    await conversation.update({ blocked: true, status: 'closed' });
    assert.deepEqual(await beatFacts(sequelize, owner, 'not-a-uuid'), { blocked: true, latestOpen: null, held: true, owns: false });
  });

  it("a first beat's facts over several conversations: the newest decides the block, the newest open one is shown, any holds messages", async () => {
    const sequelize = server().ctx.db.sequelize;
    const { company, bot } = await site();
    const other = await make.chatbot(company);
    const key = keyOf(2_000);
    const owner = { companyId: company.id, chatbotId: bot.id, visitorKey: key };
    const age = (id: number, minutesAgo: number) =>
      sequelize.query(`UPDATE conversations SET created_at = now() - make_interval(mins => $2) WHERE id = $1`, { bind: [id, minutesAgo] });
    // Oldest: blocked, closed, an agent message still undelivered. Then the open one. Newest: closed, not blocked.
    const oldest = await make.conversation(bot, { visitorKey: key, status: 'closed' });
    await oldest.update({ blocked: true });
    await age(oldest.id, 30);
    await Message.create({ companyId: company.id, conversationId: oldest.id, role: 'agent', content: 'Are you there?' });
    const open = await make.conversation(bot, { visitorKey: key });
    await age(open.id, 20);
    const newest = await make.conversation(bot, { visitorKey: key, status: 'closed' });
    await age(newest.id, 10);
    // The same visitor key on another chatbot of the workspace is not part of these facts.
    const elsewhere = await make.conversation(other, { visitorKey: key });
    await elsewhere.update({ blocked: true });

    assert.deepEqual(await beatFacts(sequelize, owner, oldest.publicId), { blocked: false, latestOpen: open.publicId, held: true, owns: true });
    assert.deepEqual(await beatFacts(sequelize, owner, elsewhere.publicId), { blocked: false, latestOpen: open.publicId, held: true, owns: false });
    await newest.update({ blocked: true });
    await Message.update({ deliveredAt: new Date() }, { where: { conversationId: oldest.id } });
    assert.deepEqual(await beatFacts(sequelize, owner, undefined), { blocked: true, latestOpen: open.publicId, held: false, owns: false });
    assert.deepEqual(await beatFacts(sequelize, { ...owner, chatbotId: other.id }, elsewhere.publicId), { blocked: true, latestOpen: elsewhere.publicId, held: false, owns: true });
  });

  it('Batched: calls made while a statement runs go together in the next one, each answered with its own result', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batched = new Batched<number, number>(
      async (inputs) => {
        batches.push([...inputs]);
        if (batches.length === 1) await gate;
        return inputs.map((n) => n * 10);
      },
      { inFlight: 1 },
    );
    const first = batched.call(1);
    await new Promise((r) => setImmediate(r));
    const rest = [2, 3, 4].map((n) => batched.call(n));
    release();
    assert.deepEqual(await Promise.all([first, ...rest]), [10, 20, 30, 40]);
    assert.deepEqual(batches, [[1], [2, 3, 4]]);
  });
});
