import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { Op } from 'sequelize';
import { shardOf } from '../../src/actors/cluster/shards';
import { Conversation, Message, UsageRecord } from '../../src/models';
import { fakeLlm, server } from '../support/hooks';
import { ask, newVisitor, widgetTenant } from '../support/widget';

// A follow-up the AI answers is stored by one statement while its provider call already runs
// (src/actors/conversation/visitorTurns.ts, `storeWhileAnswering`). What the visitor sees must be what
// the sequential path sent: `meta` first, deltas after it, and a message stored and answered once.

const REPLY = 'Parcels leave our warehouse within two working days.';

/** A visitor's conversation whose first message the AI answered: the follow-ups below go to it. */
async function answeredOnce() {
  const tenant = await widgetTenant();
  fakeLlm().script({ reply: REPLY });
  const visitor = newVisitor();
  const first = await ask(tenant, { visitor_id: visitor, message: 'Hello there' });
  return { tenant, visitor, conversationId: first.events[0]!.data.conversation_id as string };
}

describe('a follow-up answered while it is stored', () => {
  beforeEach(() => fakeLlm().reset());
  afterEach(() => fakeLlm().reset());

  it('sends meta before any delta, stores the message before its answer, and gives the model the history', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY, usage: { in: 10, out: 5 } });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Do you ship to Norway?' });
    const conversationId = first.events[0]!.data.conversation_id;
    const reply = await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: 'And how long does it take?', locale: 'de' });

    assert.equal(reply.status, 200);
    const names = reply.events.map((e) => e.event);
    assert.deepEqual([names[0], names.at(-1)], ['meta', 'done']);
    assert.ok(names.slice(1, -1).every((n) => n === 'delta'), names.join(','));
    assert.equal(reply.events.slice(1, -1).map((e) => e.data.delta).join(''), REPLY);
    const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
    const messages = await Message.findAll({ where: { conversationId: conversation!.id }, order: [['id', 'ASC']] });
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [
      ['visitor', 'Do you ship to Norway?'],
      ['assistant', REPLY],
      ['visitor', 'And how long does it take?'],
      ['assistant', REPLY],
    ]);
    assert.equal(Number(messages[2]!.id), reply.events[0]!.data.visitor_message_id);
    assert.equal(Number(messages[3]!.replyToId), reply.events[0]!.data.visitor_message_id);
    assert.equal(reply.events.at(-1)!.data.message_id, Number(messages[3]!.id));
    assert.equal(conversation!.messageCount, 4);
    assert.equal(conversation!.locale, 'de');
    const asked = JSON.stringify(fakeLlm().requests.at(-1)!.body);
    assert.match(asked, /Do you ship to Norway\?/, 'the earlier turns are in the prompt');
    assert.match(asked, /And how long does it take\?/);
    assert.match(asked, /German/, 'the locale this message set is the one the model is told');
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation!.id } }), 2);
  });

  it('ends a follow-up with error provider_unreachable after meta when the provider fails, keeping the message', async () => {
    const { tenant, visitor, conversationId } = await answeredOnce();
    fakeLlm().script({ fail: { status: 500 } });
    const reply = await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: 'Anyone there?' });
    assert.deepEqual(reply.events.map((e) => e.event), ['meta', 'error']);
    assert.equal(reply.events[1]!.data.code, 'provider_unreachable');
    const stored = await Message.findOne({ where: { id: reply.events[0]!.data.visitor_message_id } });
    assert.equal(stored?.content, 'Anyone there?');
    assert.equal(await Message.count({ where: { replyToId: stored!.id } }), 0);
  });

  it('a write fenced off by a new owner of the shard: never a delta without its stored message, never an answer twice', async () => {
    const { tenant, visitor, conversationId } = await answeredOnce();
    // Another node took the shard over (its epoch moved on) while this node still serves it: the
    // follow-up's read succeeds, its fenced write does not, while the provider is already asked.
    fakeLlm().script({ reply: REPLY, delayMs: 50 });
    await server().ctx.db.sequelize.query('UPDATE shard_fences SET epoch = epoch + 1 WHERE shard = $1', { bind: [shardOf('conversation', conversationId)] });
    const text = 'Is my parcel on its way?';
    const reply = await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: text });

    const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
    const copies = await Message.findAll({ where: { conversationId: conversation!.id, content: text } });
    assert.ok(copies.length <= 1, 'stored at most once');
    const answers = copies.length ? await Message.count({ where: { replyToId: { [Op.in]: copies.map((m) => m.id) } } }) : 0;
    assert.ok(answers <= 1, 'answered at most once');
    if (reply.status === 200) {
      // The runtime moved the turn on to the shard's new epoch: an ordinary answer.
      assert.equal(reply.events[0]!.event, 'meta');
      assert.equal(reply.events[0]!.data.visitor_message_id, Number(copies[0]!.id));
      assert.equal(reply.events.at(-1)!.event, 'done');
      assert.equal(answers, 1);
    } else {
      // Refused before anything streamed (a JSON error): nothing of this message was stored or answered.
      assert.ok(reply.status >= 500 && reply.status < 600, String(reply.status));
      assert.equal(reply.events.length, 0);
      assert.equal(copies.length, 0);
    }
  });

  it('aborts the early answer\'s provider call when the turn passes its deadline, keeps the message unanswered, and takes the next one', async () => {
    const { tenant, visitor, conversationId } = await answeredOnce();
    // The provider sends one token, then holds the answer open past the caller's (and so the turn's) deadline.
    let release!: () => void;
    fakeLlm().script({ reply: REPLY, holdAfterFirst: new Promise<void>((resolve) => (release = resolve)) });
    const text = 'Is my parcel on its way?';
    const stream = server().actors.stream('conversation', conversationId, { type: 'visitorMessage', chatbotId: tenant.bot.id, visitorKey: visitor, text, create: false, channel: 'widget' }, { timeoutMs: 1_000 });
    const events: string[] = [];
    const outcome = (async () => {
      for await (const { chunk } of stream) events.push(chunk.event);
      return stream.reply;
    })();
    try {
      await assert.rejects(outcome, (error: { code?: string }) => error.code === 'turn_timeout');
      const request = fakeLlm().requests.at(-1)!;
      // The turn's signal reaches the provider transport, which cuts the connection at once: well before the
      // provider's own idle timeout (PROVIDER_TIMEOUT_MS, 3 s here) would, ~2 s after this deadline.
      for (const until = Date.now() + 1_000; !request.closedEarly && Date.now() < until; ) await sleep(20);
      assert.equal(request.closedEarly, true, 'the provider connection was closed after the deadline');
    } finally {
      release();
    }
    assert.deepEqual(events, ['meta', 'delta']);
    const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
    const stored = await Message.findAll({ where: { conversationId: conversation!.id, content: text } });
    assert.equal(stored.length, 1, 'the message acknowledged by meta is stored');
    assert.equal(await Message.count({ where: { replyToId: stored[0]!.id } }), 0, 'no answer from the aborted call');
    // The mailbox waited for the aborted turn to settle; the next message is answered as usual.
    fakeLlm().script({ reply: REPLY });
    const next = await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: 'Hello again?' });
    assert.equal(next.events.at(-1)!.event, 'done');
  });
});
