import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { shardOf } from '../../src/actors/cluster/shards';
import { AppError } from '../../src/errors';
import { inboxTotals } from '../../src/domain/inbox/listInbox';
import { Conversation, Message, UsageRecord, Webhook } from '../../src/models';
import { joinChannel } from '../support/agent';
import { fakeLlm, server } from '../support/hooks';
import * as make from '../support/factories';
import { connect, Inbox, type ClientSocket } from '../support/sockets';
import { ask, newVisitor, widgetTenant } from '../support/widget';

// A new conversation's first message is stored by one fenced statement (src/actors/conversation/
// firstMessage.ts, record.ts `storeFirstLine`): the same rows, columns, counters, realtime and
// integrator events, deliveries and pushes as the general write it replaced, the same 409 when the
// visitor already has an open conversation, and nothing written under a stale epoch. Every test here
// holds for the general write too.

const REPLY = 'We ship to Norway within five days.';

const db = () => server().ctx.db.sequelize;

type Tenant = Awaited<ReturnType<typeof widgetTenant>>;

/** The conversation's integrator events, in order. */
const eventsOf = (conversationId: number) =>
  db().query<{ id: string; type: string; seq: number; data: Record<string, unknown> }>('SELECT id, type, seq, data FROM integration_events WHERE conversation_id = $1 ORDER BY seq', {
    bind: [conversationId],
    type: QueryTypes.SELECT,
  });

/** The deliveries queued for the conversation: webhook, event and seq. */
const deliveriesOf = (conversationId: number) =>
  db().query<{ webhook_id: number; event_id: string; seq: number }>('SELECT webhook_id, event_id, seq FROM webhook_deliveries WHERE conversation_id = $1 ORDER BY webhook_id, seq', {
    bind: [conversationId],
    type: QueryTypes.SELECT,
  });

/** Everything stored for the visitor on this chatbot: conversations, their lines and events. */
async function storedFor(tenant: Tenant, visitorKey: string) {
  const conversations = await Conversation.findAll({ where: { chatbotId: tenant.bot.id, visitorKey }, order: [['id', 'ASC']] });
  const ids = conversations.map((c) => c.id);
  const messages = ids.length ? await Message.findAll({ where: { conversationId: ids }, order: [['id', 'ASC']] }) : [];
  const events = ids.length
    ? await db().query<{ conversation_id: number; type: string; seq: number }>('SELECT conversation_id, type, seq FROM integration_events WHERE conversation_id IN (:ids) ORDER BY conversation_id, seq', {
        replacements: { ids },
        type: QueryTypes.SELECT,
      })
    : [];
  return { conversations, messages, events };
}

/** A webhook of the workspace, subscribed to `events` (the delivery itself is not run here: the rows are what a write leaves). */
const webhook = (tenant: Tenant, events: string[]) =>
  Webhook.create({ companyId: tenant.company.id, url: `https://hooks.example.test/${randomUUID()}`, events, secretEncrypted: 'not used here', active: true });

describe('a new conversation’s first message stored by one statement', () => {
  const sockets: ClientSocket[] = [];
  beforeEach(() => fakeLlm().reset());
  afterEach(() => {
    sockets.splice(0).forEach((socket) => socket.close());
    fakeLlm().reset();
  });

  /** An agent of the workspace watching the inbox channel and their own (pushes): what other agents see live. */
  async function watchingAgent(tenant: Tenant): Promise<Inbox> {
    const agent = await make.user(tenant.company, 'agent');
    const token = await make.token(agent, 'agent');
    const socket = await connect(server().url, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    await joinChannel(socket, token, `private-company.${tenant.company.id}`);
    await joinChannel(socket, token, `private-user.${agent.id}`);
    return inbox;
  }

  it('stores the conversation, its line, counters, events, deliveries and pushes as the general write did', async () => {
    const tenant = await widgetTenant();
    const both = await webhook(tenant, ['conversation.created', 'message.created']);
    const createdOnly = await webhook(tenant, ['conversation.created']);
    await webhook(tenant, ['conversation.updated']); // hears nothing of this write
    const inbox = await watchingAgent(tenant);
    const countsBefore = await inboxTotals(tenant.company.id, tenant.owner.id);

    fakeLlm().script({ reply: REPLY, usage: { in: 12, out: 7 } });
    const visitor = newVisitor();
    const text = 'Hello, do you ship parcels to Norway and how long does it usually take?';
    const reply = await ask(tenant, {
      visitor_id: visitor,
      message: text,
      client_id: 'first-1',
      locale: 'en-GB',
      timezone: 'Europe/Oslo',
      meta: { page_url: 'https://shop.example/faq', visitor: { name: 'Ann' } },
    });
    assert.deepEqual(
      reply.events.map((e) => e.event),
      ['meta', ...reply.events.slice(1, -1).map(() => 'delta'), 'done'],
    );
    const meta = reply.events[0]!.data;
    assert.equal(meta.status, 'bot');

    const { conversations, messages } = await storedFor(tenant, visitor);
    assert.equal(conversations.length, 1);
    const conversation = conversations[0]!;
    assert.equal(conversation.publicId, meta.conversation_id);
    const [line, answer] = messages;
    assert.deepEqual(
      messages.map((m) => [m.role, m.content]),
      [
        ['visitor', text],
        ['assistant', REPLY],
      ],
    );
    assert.equal(Number(line!.id), meta.visitor_message_id);
    assert.deepEqual([line!.clientId, line!.companyId, line!.replyToId, line!.authorUserId, line!.provider, line!.model], ['first-1', tenant.company.id, null, null, null, null]);
    assert.equal(Number(answer!.replyToId), Number(line!.id));

    // The row as the general write left it (with the answer's columns on top).
    const row = conversation.get();
    assert.deepEqual(
      {
        companyId: row.companyId,
        chatbotId: row.chatbotId,
        visitorKey: row.visitorKey,
        channel: row.channel,
        status: row.status,
        handoffState: row.handoffState,
        escalated: row.escalated,
        resolution: row.resolution,
        resolvedAt: row.resolvedAt,
        resolvedByAi: row.resolvedByAi,
        assignedUserId: row.assignedUserId,
        handoffRequestedAt: row.handoffRequestedAt,
        routedAt: row.routedAt,
        passedOverUserId: row.passedOverUserId,
        slaBreachedAt: row.slaBreachedAt,
        visitorName: row.visitorName,
        visitorEmail: row.visitorEmail,
        visitorPhone: row.visitorPhone,
        identity: row.identity,
        identitySub: row.identitySub,
        meta: row.meta,
        prechat: row.prechat,
        locale: row.locale,
        timezone: row.timezone,
        detectedLanguage: row.detectedLanguage,
        summary: row.summary,
        intent: row.intent,
        revenueCents: row.revenueCents,
        revenueCurrency: row.revenueCurrency,
        routedBy: row.routedBy,
        blocked: row.blocked,
        abuseStrikes: row.abuseStrikes,
        unreadCount: row.unreadCount,
        messageCount: row.messageCount,
        lastMessagePreview: row.lastMessagePreview,
        seq: Number(row.seq),
      },
      {
        companyId: tenant.company.id,
        chatbotId: tenant.bot.id,
        visitorKey: visitor,
        channel: 'widget',
        status: 'bot',
        handoffState: 'bot_active',
        escalated: false,
        resolution: null,
        resolvedAt: null,
        resolvedByAi: false,
        assignedUserId: null,
        handoffRequestedAt: null,
        routedAt: null,
        passedOverUserId: null,
        slaBreachedAt: null,
        visitorName: 'Ann',
        visitorEmail: null,
        visitorPhone: null,
        identity: null,
        identitySub: null,
        meta: { page_url: 'https://shop.example/faq' },
        prechat: [{ field: 'name', value: 'Ann' }],
        locale: 'en-GB',
        timezone: 'Europe/Oslo',
        detectedLanguage: 'en',
        summary: null,
        intent: null,
        revenueCents: null,
        revenueCurrency: null,
        routedBy: 'ai',
        blocked: false,
        abuseStrikes: 0,
        unreadCount: 1,
        messageCount: 2,
        lastMessagePreview: REPLY,
        seq: 3,
      },
    );
    assert.equal(row.lastMessageAt.getTime(), answer!.createdAt.getTime());
    assert.ok(row.createdAt.getTime() <= line!.createdAt.getTime() + 5 && line!.createdAt.getTime() <= answer!.createdAt.getTime());
    assert.ok(row.updatedAt.getTime() >= row.createdAt.getTime());
    // Two writes (the first line, the answer): one version each.
    assert.equal(row.version, 2);

    // conversation.created, then each line's message.created, with the data integrators receive.
    const events = await eventsOf(Number(conversation.id));
    assert.deepEqual(
      events.map((e) => [e.type, Number(e.seq)]),
      [
        ['conversation.created', 1],
        ['message.created', 2],
        ['message.created', 3],
      ],
    );
    assert.deepEqual(events[0]!.data, {
      conversation: {
        id: conversation.publicId,
        chatbot: tenant.bot.publicKey,
        channel: 'widget',
        status: 'bot',
        handoff_state: 'bot_active',
        assigned_user_id: null,
        resolution: null,
        visitor_id: visitor,
        created_at: row.createdAt.toISOString(),
      },
    });
    assert.deepEqual(events[1]!.data, { message: { id: Number(line!.id), role: 'visitor', content: text, author_user_id: null, created_at: line!.createdAt.toISOString() } });

    // One delivery per event per subscribed webhook, none for the webhook of another event.
    const deliveries = await deliveriesOf(Number(conversation.id));
    assert.deepEqual(
      deliveries.map((d) => [Number(d.webhook_id), d.event_id, Number(d.seq)]),
      [
        [both.id, events[0]!.id, 1],
        [both.id, events[1]!.id, 2],
        [both.id, events[2]!.id, 3],
        [createdOnly.id, events[0]!.id, 1],
      ].sort((a, b) => Number(a[0]) - Number(b[0]) || Number(a[2]) - Number(b[2])),
    );

    // Agents see the new conversation on the inbox channel before its first line, with the seqs stored.
    const created = await inbox.next((r) => r.name === 'conversation.created' && (r.payload.data as { id?: string }).id === conversation.publicId);
    assert.equal(created.payload.seq, 1);
    assert.equal(created.payload.channel, `private-company.${tenant.company.id}`);
    const firstLine = await inbox.next((r) => r.name === 'message.created' && (r.payload.data as { id?: number }).id === Number(line!.id));
    assert.equal(firstLine.payload.seq, 2);
    assert.ok(inbox.received.indexOf(created) < inbox.received.indexOf(firstLine));

    // The inbox counts: one more conversation for the AI, unread.
    const countsAfter = await inboxTotals(tenant.company.id, tenant.owner.id);
    assert.equal(countsAfter.counts.all, countsBefore.counts.all + 1);
    assert.equal(countsAfter.counts.ai, countsBefore.counts.ai + 1);
    assert.equal(countsAfter.counts.unread, countsBefore.counts.unread + 1);
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation.id } }), 1);
  });

  it('tells agents of the new conversation (chat_started), once, with the visitor’s first line', async () => {
    const tenant = await widgetTenant();
    const inbox = await watchingAgent(tenant);
    fakeLlm().script({ reply: REPLY });
    const visitor = newVisitor();
    const text = 'Is anyone there to help me with an order?';
    const reply = await ask(tenant, { visitor_id: visitor, message: text });
    const conversationId = reply.events[0]!.data.conversation_id as string;
    const pushed = await inbox.next((r) => r.name === 'notification' && (r.payload.data as { event?: string; conversation_id?: string }).event === 'chat_started');
    const data = pushed.payload.data as { conversation_id: string; body: string };
    assert.equal(data.conversation_id, conversationId);
    assert.ok(data.body.includes(text.slice(0, 20)), data.body);
    assert.equal(inbox.received.filter((r) => r.name === 'notification' && (r.payload.data as { event?: string }).event === 'chat_started').length, 1);
  });

  it('two first messages of one visitor at once: one conversation, both lines in it, the loser leaves no row', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY });
    for (let round = 0; round < 4; round++) {
      const visitor = newVisitor();
      const replies = await Promise.all([ask(tenant, { visitor_id: visitor, message: 'First of two at once' }), ask(tenant, { visitor_id: visitor, message: 'Second of two at once' })]);
      for (const reply of replies) assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const ids = new Set(replies.map((r) => r.events[0]!.data.conversation_id));
      assert.equal(ids.size, 1, 'both messages went to the one conversation');
      const { conversations, messages, events } = await storedFor(tenant, visitor);
      assert.equal(conversations.length, 1, 'the loser created no conversation');
      assert.deepEqual(messages.filter((m) => m.role === 'visitor').map((m) => m.content).sort(), ['First of two at once', 'Second of two at once']);
      assert.equal(events.filter((e) => e.type === 'conversation.created').length, 1);
      assert.equal(events.filter((e) => e.type === 'message.created').length, messages.length);
      assert.equal(conversations[0]!.messageCount, messages.length);
    }
  });

  it('a first message to a new id while the visitor has an open conversation: 409 naming it, nothing stored', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY });
    const visitor = newVisitor();
    const open = await ask(tenant, { visitor_id: visitor, message: 'Hello there, first one' });
    const openId = open.events[0]!.data.conversation_id as string;
    // Two more first messages at once, each to a conversation id of its own (as the route mints them).
    const attempts = await Promise.allSettled(
      [0, 1].map(() =>
        server().actors.ask('conversation', randomUUID(), { type: 'visitorMessage', chatbotId: tenant.bot.id, visitorKey: visitor, text: 'Another start', create: true, channel: 'widget' }),
      ),
    );
    for (const attempt of attempts) {
      assert.equal(attempt.status, 'rejected');
      const error = (attempt as PromiseRejectedResult).reason as AppError;
      assert.equal(error.status, 409);
      assert.equal(error.code, 'conversation_open');
      assert.deepEqual(error.details.body, { conversation_id: openId });
    }
    const { conversations, messages, events } = await storedFor(tenant, visitor);
    assert.equal(conversations.length, 1);
    assert.equal(messages.filter((m) => m.content === 'Another start').length, 0);
    assert.equal(events.length, messages.length + 1);
  });

  it('the shard moved on before the write: nothing is stored and the message fails', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: REPLY });
    const visitor = newVisitor();
    const id = randomUUID();
    // The node still believes it owns the shard, under an epoch a new owner has replaced.
    await server().actors.ask('conversation', id, { type: 'requestHandoff', chatbotId: tenant.bot.id, visitorKey: visitor }).catch(() => undefined);
    await db().query('UPDATE shard_fences SET epoch = epoch + 1 WHERE shard = $1', { bind: [shardOf('conversation', id)] });
    const sent = await server()
      .actors.ask('conversation', id, { type: 'visitorMessage', chatbotId: tenant.bot.id, visitorKey: visitor, text: 'Hello from a moved shard', create: true, channel: 'widget' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // As any write under a stale epoch: the turn fails with `owner_lost` and this copy of the actor is dropped.
    assert.ok(sent instanceof AppError, String(sent));
    assert.deepEqual([sent.status, sent.code], [503, 'owner_lost']);
    const { conversations, messages, events } = await storedFor(tenant, visitor);
    assert.deepEqual([conversations.length, messages.length, events.length], [0, 0, 0]);
    assert.equal(await Conversation.count({ where: { publicId: id } }), 0);
  });

  it('the provider fails after the write: the conversation and its line stay, with their events, and no answer or usage', async () => {
    const tenant = await widgetTenant();
    await webhook(tenant, ['conversation.created', 'message.created']);
    fakeLlm().script({ fail: { status: 500 } });
    const visitor = newVisitor();
    const reply = await ask(tenant, { visitor_id: visitor, message: 'Will this be answered at all?' });
    assert.deepEqual(
      reply.events.map((e) => e.event),
      ['meta', 'error'],
    );
    assert.equal(reply.events[1]!.data.code, 'provider_unreachable');
    const { conversations, messages, events } = await storedFor(tenant, visitor);
    assert.equal(conversations.length, 1);
    assert.deepEqual(
      messages.map((m) => m.role),
      ['visitor'],
    );
    assert.deepEqual(
      events.map((e) => [e.type, Number(e.seq)]),
      [
        ['conversation.created', 1],
        ['message.created', 2],
      ],
    );
    const conversation = conversations[0]!;
    assert.deepEqual([conversation.messageCount, conversation.unreadCount, Number(conversation.seq), conversation.version], [1, 1, 2, 1]);
    assert.equal((await deliveriesOf(Number(conversation.id))).length, 2);
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation.id } }), 0);
  });

  it('the write is one statement: no fenced transaction, one statement inserts the conversation (round trips: fails on the general write)', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ fail: { status: 500 } }); // no answer to store: the first line's write alone
    const visitor = newVisitor();
    const statements: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      statements.push(typeof config === 'string' ? config : (config?.text ?? ''));
      return (query as (...rest: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const reply = await ask(tenant, { visitor_id: visitor, message: 'Counting the statements of this one' });
      assert.equal(reply.events[0]!.event, 'meta');
    } finally {
      pg.Client.prototype.query = query;
    }
    assert.equal(statements.filter((text) => text.includes('idle_in_transaction_session_timeout')).length, 0, 'no fenced transaction');
    assert.equal(statements.filter((text) => /INSERT INTO "?conversations"?/.test(text)).length, 1);
    assert.equal((await storedFor(tenant, visitor)).conversations.length, 1);
  });

  it('a first message with contact details keeps the general write: its lead and lead.created', async () => {
    const tenant = await widgetTenant();
    await tenant.bot.update({ branding: { ...tenant.bot.branding, auto_actions: true } });
    fakeLlm().script({ reply: REPLY });
    const visitor = newVisitor();
    const reply = await ask(tenant, { visitor_id: visitor, message: 'Please write to me at ann@example.test about my order' });
    assert.equal(reply.events.at(-1)!.event, 'done');
    const { conversations, events } = await storedFor(tenant, visitor);
    assert.deepEqual(
      events.map((e) => e.type),
      ['conversation.created', 'message.created', 'lead.created', 'message.created'],
    );
    assert.equal(conversations.length, 1);
  });
});
