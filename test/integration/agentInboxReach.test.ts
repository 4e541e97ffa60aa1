import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { Conversation, Message } from '../../src/models';
import { get } from '../support/http';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';

interface InboxBody {
  conversations: Array<{ id: string; visitor: string }>;
  counts: { all: number };
  groups: Record<string, number>;
  listed: number;
  next_cursor: string | null;
}

const inbox = (token: string, query: Record<string, string> = {}) => get<InboxBody>(`/api/agent/inbox?${new URLSearchParams(query)}`, token);
const ids = (body: InboxBody) => body.conversations.map((item) => item.id);

/** `count` open conversations of the bot, in the order the inbox lists them (newest activity first). */
async function openConversations(bot: { id: number; companyId: number }, count: number, prefix: string, at: (i: number) => Date): Promise<string[]> {
  const rows = await Conversation.bulkCreate(
    Array.from({ length: count }, (_, i) => ({ companyId: bot.companyId, chatbotId: bot.id, visitorKey: `${prefix}-${i}`, lastMessageAt: at(i) })),
  );
  return rows.map((row) => row.publicId);
}

describe('agent: inbox paging (`before` / `next_cursor`) and search (`q`)', () => {
  it('walks the whole list once, in order, with no duplicate or gap, while new conversations arrive', async () => {
    const { token, bot, company } = await agentTenant();
    await openConversations(bot, 150, 'old', () => new Date(Date.now() - 3_600_000));
    // Triples share a moment and neighbours differ by one microsecond: a cursor that kept less than
    // Postgres keeps (a JS Date holds milliseconds), or broke ties other than by id, would skip or repeat rows.
    await Conversation.sequelize!.query(
      `UPDATE conversations c SET last_message_at = timestamptz '2026-01-01 12:00:00Z' - (r.rank / 3) * interval '1 microsecond'
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS rank FROM conversations WHERE company_id = $1) r
        WHERE c.id = r.id`,
      { bind: [company.id], type: QueryTypes.UPDATE },
    );
    const expected = (
      await Conversation.sequelize!.query<{ public_id: string }>(
        'SELECT public_id FROM conversations WHERE company_id = $1 ORDER BY last_message_at DESC, id DESC',
        { bind: [company.id], type: QueryTypes.SELECT },
      )
    ).map((row) => row.public_id);

    const walked: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    let arrived = 0;
    do {
      const reply = await inbox(token, cursor ? { before: cursor } : {});
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      walked.push(...ids(reply.body));
      pages.push(reply.body.listed);
      assert.equal(reply.body.counts.all, 150 + arrived, 'the counts cover the whole inbox, not the page');
      cursor = reply.body.next_cursor;
      // Conversations that arrive between pages are newer than any cursor: they belong above, not in the next page.
      await openConversations(bot, 5, `new-${arrived}`, () => new Date());
      arrived += 5;
    } while (cursor);

    assert.deepEqual(pages, [60, 60, 30]);
    assert.deepEqual(walked, expected);
    const first = await inbox(token);
    assert.equal(first.body.counts.all, 150 + arrived);
    assert.equal(first.body.conversations.filter((item) => !expected.includes(item.id)).length, arrived, 'the arrivals head the first page');
  });

  it('gives no cursor when one page holds everything, and none for a deep link', async () => {
    const { token, bot } = await agentTenant();
    const [only] = await openConversations(bot, 60, 'v', (i) => new Date(Date.now() - i * 1000));
    const reply = await inbox(token);
    assert.deepEqual([reply.body.listed, reply.body.next_cursor], [60, null]);
    const deepLink = await get<InboxBody>(`/api/agent/conversations/${only}`, token);
    assert.deepEqual([deepLink.status, deepLink.body.next_cursor], [200, null]);
  });

  it('pages through a filter and a search the same way', async () => {
    const { token, bot } = await agentTenant();
    const held = await openConversations(bot, 65, 'held', (i) => new Date(Date.now() - i * 1000));
    await Conversation.update({ status: 'agent', handoffState: 'human_connected' }, { where: { publicId: held } });
    await openConversations(bot, 10, 'bot', () => new Date());
    const first = await inbox(token, { filter: 'team' });
    const second = await inbox(token, { filter: 'team', before: first.body.next_cursor! });
    assert.deepEqual([...ids(first.body), ...ids(second.body)], held);
    assert.equal(second.body.next_cursor, null);

    // 32 lines each, 2,080 in all: a search this common walks the list instead of gathering its matches first.
    const rows = await Conversation.findAll({ where: { publicId: held } });
    await Message.bulkCreate(
      rows.flatMap((row) => Array.from({ length: 32 }, (_, n) => ({ companyId: row.companyId, conversationId: row.id, role: 'visitor' as const, content: `Where is my refund? (${n})` }))),
    );
    const unrelated = await make.conversation(bot, { messages: [['visitor', 'Hello']] });
    for (const q of ['REFUND', 'refund? (7)']) {
      const found = await inbox(token, { q });
      const rest = await inbox(token, { q, before: found.body.next_cursor! });
      assert.deepEqual([...ids(found.body), ...ids(rest.body)], held, q);
      assert.equal(rest.body.next_cursor, null);
      assert.ok(!ids(found.body).includes(unrelated.publicId));
    }
  });

  it('finds by visitor name, email and message text, in any case, within the workspace only', async () => {
    const { token, bot } = await agentTenant();
    const other = await agentTenant();
    const byName = await make.conversation(bot, { lastMessageAt: new Date(Date.now() - 3000) });
    await byName.update({ visitorName: 'Gwendolyn Marsh' });
    const byEmail = await make.conversation(bot, { lastMessageAt: new Date(Date.now() - 2000) });
    await byEmail.update({ visitorEmail: 'g.marsh@example.test' });
    const byText = await make.conversation(bot, { lastMessageAt: new Date(Date.now() - 1000), messages: [['visitor', 'Hi'], ['agent', 'Your order MARSH-42 shipped']] });
    const closed = await make.conversation(bot, { status: 'closed', messages: [['visitor', 'marsh again']] });
    const unrelated = await make.conversation(bot, { messages: [['visitor', 'Nothing to see']] });
    // The same words in another workspace: never found from this one.
    const foreign = await make.conversation(other.bot, { messages: [['visitor', 'Gwendolyn Marsh, g.marsh@example.test']] });
    await foreign.update({ visitorName: 'Gwendolyn Marsh' });

    const found = await inbox(token, { q: 'mArSh' });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.deepEqual(ids(found.body), [byText, byEmail, byName].map((c) => c.publicId));
    assert.deepEqual(ids((await inbox(token, { q: 'marsh', filter: 'resolved' })).body), [closed.publicId], 'a search narrows the filter');
    assert.deepEqual(ids((await inbox(token, { q: '@example.test' })).body), [byEmail.publicId]);
    assert.deepEqual(ids((await inbox(token, { q: 'shipped MARSH' })).body), [], 'the text as written, not its words');
    assert.deepEqual(ids((await inbox(other.token, { q: 'marsh' })).body), [foreign.publicId]);

    // The counts and groups are the whole inbox's, whatever the search.
    const everything = await inbox(token);
    assert.deepEqual([found.body.counts, found.body.groups], [everything.body.counts, everything.body.groups]);
    assert.equal(everything.body.counts.all, 4);
    assert.ok(ids(everything.body).includes(unrelated.publicId));
  });

  it("takes `%`, `_` and `\\` in the search as themselves", async () => {
    const { token, bot } = await agentTenant();
    const percent = await make.conversation(bot, { messages: [['visitor', 'Is there 100% cotton?']] });
    await make.conversation(bot, { messages: [['visitor', 'Plain text about 1000 things']] });
    const underscore = await make.conversation(bot, { messages: [['visitor', 'my user_name is taken']] });
    const backslash = await make.conversation(bot, { messages: [['visitor', 'path C:\\temp\\x']] });
    assert.deepEqual(ids((await inbox(token, { q: '00%' })).body), [percent.publicId]);
    assert.deepEqual(ids((await inbox(token, { q: 'r_n' })).body), [underscore.publicId]);
    assert.deepEqual(ids((await inbox(token, { q: ':\\te' })).body), [backslash.publicId]);
  });

  it('422 for a malformed cursor or a search too short or too long', async () => {
    const { token } = await agentTenant();
    for (const before of ['', 'abc', 'A'.repeat(21), 'A'.repeat(23), `${'A'.repeat(21)}=`, `${'A'.repeat(21)}+`]) {
      const reply = await get<{ errors: Record<string, unknown> }>(`/api/agent/inbox?before=${encodeURIComponent(before)}`, token);
      assert.equal(reply.status, 422, before);
      assert.ok(reply.body.errors.before, before);
    }
    for (const q of ['ab', 'x'.repeat(101)]) {
      const reply = await get<{ errors: Record<string, unknown> }>(`/api/agent/inbox?q=${q}`, token);
      assert.equal(reply.status, 422, q);
      assert.ok(reply.body.errors.q, q);
    }
    // Any cursor of the right form names a position, even one no page gave out.
    for (const before of ['A'.repeat(22), '_'.repeat(22)]) assert.equal((await inbox(token, { before })).status, 200, before);
  });
});
