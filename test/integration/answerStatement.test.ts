import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { shardOf } from '../../src/actors/cluster/shards';
import { costMicroCents } from '../../src/domain/usage/pricing';
import { Conversation, Message, UsageRecord } from '../../src/models';
import { eventually } from '../support/eventually';
import { fakeLlm, server } from '../support/hooks';
import { ask, newVisitor, widgetTenant } from '../support/widget';

// An AI answer is stored by one fenced statement (src/actors/conversation/record.ts `storeLineAlone`
// with its usage row): the same rows, counters and integrator events as the transaction it replaced,
// and under a stale epoch none of them.

const REPLY = 'Parcels leave our warehouse within two working days.';

const db = () => server().ctx.db.sequelize;

/** The conversation's integrator events, in order: type, seq and the message each names. */
const eventsOf = (conversationId: number) =>
  db().query<{ type: string; seq: string; message_id: number | null; role: string | null }>(
    `SELECT type, seq, (data -> 'message' ->> 'id')::bigint AS message_id, data -> 'message' ->> 'role' AS role
     FROM integration_events WHERE conversation_id = $1 ORDER BY seq`,
    { bind: [conversationId], type: QueryTypes.SELECT },
  );

/**
 * A conversation answered once, then a follow-up `text` whose answer the provider holds after its
 * first delta until `release`: the moment to change what the answer's statement will find.
 */
async function followUpHeldMidAnswer(text: string) {
  const tenant = await widgetTenant();
  fakeLlm().script({ reply: REPLY, usage: { in: 10, out: 5 } });
  const visitor = newVisitor();
  const first = await ask(tenant, { visitor_id: visitor, message: 'Hello there' });
  const conversationId: string = first.events[0]!.data.conversation_id;
  const conversation = (await Conversation.findOne({ where: { publicId: conversationId } }))!;
  let release!: () => void;
  fakeLlm().script({ reply: REPLY, usage: { in: 10, out: 5 }, holdAfterFirst: new Promise<void>((resolve) => (release = resolve)) });
  const replying = ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: text });
  return { tenant, conversationId, conversation, replying, release };
}

describe('an AI answer stored by one statement', () => {
  beforeEach(() => fakeLlm().reset());
  afterEach(() => fakeLlm().reset());

  it('stores the answer, its usage, the counters and message.created as the transaction did, for a first message and a follow-up', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY, usage: { in: 10, out: 5 } });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Do you ship to Norway?' });
    const conversationId: string = first.events[0]!.data.conversation_id;
    const follow = await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: 'And how long does it take?' });
    assert.equal(follow.events.at(-1)!.event, 'done');

    const conversation = (await Conversation.findOne({ where: { publicId: conversationId } }))!;
    const messages = await Message.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] });
    assert.deepEqual(messages.map((m) => m.role), ['visitor', 'assistant', 'visitor', 'assistant']);
    for (const [i, answer] of [messages[1]!, messages[3]!].entries()) {
      const question = [first, follow][i]!;
      assert.equal(Number(answer.replyToId), question.events[0]!.data.visitor_message_id);
      assert.equal(question.events.at(-1)!.data.message_id, Number(answer.id));
      assert.equal(answer.content, REPLY);
      assert.equal(answer.provider, tenant.bot.provider);
      assert.ok(answer.model);
      assert.deepEqual([answer.tokensIn, answer.tokensOut], [10, 5]);
      assert.deepEqual(answer.sources, []);
      assert.equal(answer.clientId, null);
    }

    const usage = await UsageRecord.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] });
    assert.equal(usage.length, 2);
    for (const [i, row] of usage.entries()) {
      const answer = messages[2 * i + 1]!;
      assert.deepEqual(
        [row.companyId, row.chatbotId, row.kind, row.provider, row.model, row.tokensIn, row.tokensOut, row.userId],
        [tenant.company.id, tenant.bot.id, 'reply', answer.provider, answer.model, 10, 5, null],
      );
      assert.equal(Number(row.costMicroCents), costMicroCents(answer.provider!, answer.model!, 10, 5));
      assert.ok(Math.abs(row.createdAt.getTime() - answer.createdAt.getTime()) < 5_000);
    }

    // The counters and preview as the last line leaves them; an answer leaves the visitor's unread count alone.
    assert.equal(conversation.messageCount, 4);
    assert.equal(conversation.lastMessagePreview, REPLY);
    assert.equal(conversation.lastMessageAt!.getTime(), messages[3]!.createdAt.getTime());
    assert.equal(conversation.unreadCount, 2);

    // Every line has its message.created, in the order of the lines, and the row's seq is the last event's.
    const events = await eventsOf(Number(conversation.id));
    const lines = events.filter((e) => e.type === 'message.created');
    assert.deepEqual(lines.map((e) => [Number(e.message_id), e.role]), messages.map((m) => [Number(m.id), m.role]));
    assert.equal(events[0]!.type, 'conversation.created');
    const seqs = events.map((e) => Number(e.seq));
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.equal(Number(conversation.seq), seqs.at(-1));
  });

  it('a new owner took the shard while the answer streamed: nothing of the answer is written under the old epoch', async () => {
    const text = 'Is my parcel on its way?';
    const { conversationId, conversation, replying, release } = await followUpHeldMidAnswer(text);
    // The question is stored (its statement committed) and the provider is held mid-answer: now the shard moves on.
    const stored = await eventually(
      () => Message.count({ where: { conversationId: conversation.id, content: text } }),
      (n) => n === 1,
    );
    assert.equal(stored, 1);
    await eventually(
      () => fakeLlm().requests.length,
      (n) => n >= 2,
    );
    await db().query('UPDATE shard_fences SET epoch = epoch + 1 WHERE shard = $1', { bind: [shardOf('conversation', conversationId)] });
    release();
    const reply = await replying;
    assert.equal(reply.events[0]!.event, 'meta');

    // Whatever the turn did next, the rows agree: each answer has its usage row and its event, and
    // the question is answered at most once.
    const question = (await Message.findOne({ where: { conversationId: conversation.id, content: text } }))!;
    const answers = await Message.count({ where: { replyToId: question.id, role: 'assistant' } });
    assert.ok(answers <= 1, 'answered at most once');
    const messages = await Message.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] });
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation.id } }), messages.filter((m) => m.role === 'assistant').length);
    const lines = (await eventsOf(Number(conversation.id))).filter((e) => e.type === 'message.created');
    assert.deepEqual(lines.map((e) => Number(e.message_id)), messages.map((m) => Number(m.id)));
    await conversation.reload();
    assert.equal(conversation.messageCount, messages.length);
    if (answers === 0) assert.equal(reply.events.at(-1)!.event, 'error', 'the answer was not stored, so the stream does not end as answered');
  });

  it('another owner answered the question first: the statement stores nothing and the turn ends with their answer', async () => {
    const text = 'Do you ship on Saturdays?';
    const { tenant, conversation, replying, release } = await followUpHeldMidAnswer(text);
    const question = await eventually(
      () => Message.findOne({ where: { conversationId: conversation.id, content: text } }),
      (found) => found !== null,
    );
    // The answer a previous owner stored (the unique index allows one AI answer per question).
    const theirs = await Message.create({ companyId: conversation.companyId, conversationId: conversation.id, role: 'assistant', content: 'Yes, on Saturdays too.', replyToId: question!.id, provider: tenant.bot.provider, model: 'earlier' });
    const usageBefore = await UsageRecord.count({ where: { conversationId: conversation.id } });
    release();
    const reply = await replying;

    assert.equal(reply.events.at(-1)!.event, 'done');
    assert.equal(reply.events.at(-1)!.data.message_id, Number(theirs.id));
    assert.equal(await Message.count({ where: { replyToId: question!.id } }), 1);
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation.id } }), usageBefore, 'no usage row for an answer not stored');
    const lines = (await eventsOf(Number(conversation.id))).filter((e) => e.type === 'message.created');
    assert.ok(!lines.some((e) => e.role === 'assistant' && Number(e.message_id) > Number(theirs.id)), 'no event for an answer not stored');
  });
});
