import { strict as assert } from 'node:assert';
import { Conversation, ConversationEvent, Message, PageView, Visitor } from '../../src/models';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { request, type Reply } from '../support/http';
import { secondAgentInbox } from '../support/agent';
import type { ClientSocket, Inbox } from '../support/sockets';
import { ask, newVisitor, widgetTenant } from '../support/widget';

/** A widget tenant with an agent who may handle conversations. */
async function tenant() {
  const t = await widgetTenant();
  const agent = await make.user(t.company, 'agent');
  return { ...t, agent, token: await make.token(agent, 'agent') };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

const act = (token: string, conversation: Conversation, action: 'block' | 'unblock') =>
  request('POST', `/api/agent/conversations/${conversation.publicId}/${action}`, { token });

const beat = (t: Tenant, visitorKey: string, conversationId?: string): Promise<Reply> =>
  request('POST', `${t.base}/heartbeat`, {
    body: { visitor_id: visitorKey, url: 'https://shop.example/', conversation_id: conversationId ?? null },
    headers: { 'X-Forwarded-For': t.ip },
  });

const widgetPost = (t: Tenant, path: string, conversation: Conversation) =>
  request('POST', `${t.base}${path}`, { body: { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId }, headers: { 'X-Forwarded-For': t.ip } });

const fresh = async (conversation: Conversation) => (await Conversation.findByPk(conversation.id))!;
const lines = (conversation: Conversation) => Message.count({ where: { conversationId: conversation.id } });
const eventsOf = async (conversation: Conversation) =>
  (await ConversationEvent.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] })).map((e) => [e.type, e.source, e.userId]);

/** A refusal of a blocked visitor: 403 `blocked` with a message to show. */
function assertBlocked(reply: { status: number; body: any }, what: string): void {
  assert.equal(reply.status, 403, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.code, 'blocked', what);
  assert.ok(typeof reply.body.message === 'string' && reply.body.message.length > 0, what);
}

describe('blocking a visitor', () => {
  const sockets: ClientSocket[] = [];
  beforeEach(() => fakeLlm().reset());
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  const updatesOf = (inbox: Inbox, conversation: Conversation) =>
    inbox.received.filter((r) => r.name === 'conversation.updated' && (r.payload.data as { id?: string }).id === conversation.publicId);

  it('block and unblock are conversation writes: an event each, `conversation.updated` on a second agent’s socket, repeats write nothing', async () => {
    const t = await tenant();
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Hello']] });
    const inbox = await secondAgentInbox(t.company, sockets);

    const blocked = await act(t.token, conversation, 'block');
    assert.deepEqual([blocked.status, blocked.body], [200, { blocked: true }]);
    await inbox.next(() => updatesOf(inbox, conversation).length >= 1);
    assert.equal(updatesOf(inbox, conversation)[0]!.payload.seq, Number((await fresh(conversation)).seq));
    assert.equal((await fresh(conversation)).blocked, true);
    assert.deepEqual((await act(t.token, conversation, 'block')).body, { blocked: true });

    const active = await request('GET', `/api/agent/conversations/${conversation.publicId}`, { token: t.token });
    assert.equal(active.status, 200, JSON.stringify(active.body));
    assert.deepEqual([active.body.active.blocked, active.body.active.abuse_strikes], [true, 0]);

    const unblocked = await act(t.token, conversation, 'unblock');
    assert.deepEqual([unblocked.status, unblocked.body], [200, { blocked: false }]);
    await inbox.next(() => updatesOf(inbox, conversation).length >= 2);
    assert.deepEqual((await act(t.token, conversation, 'unblock')).body, { blocked: false });
    assert.deepEqual(await eventsOf(conversation), [
      ['blocked', 'agent', t.agent.id],
      ['unblocked', 'agent', t.agent.id],
    ]);
    assert.equal(updatesOf(inbox, conversation).length, 2, 'a repeat raises nothing');
  });

  it('a blocked visitor’s stream, heartbeat, handoff and reset answer 403 and store nothing; unblock restores them', async () => {
    const t = await tenant();
    const visitor = newVisitor();
    fakeLlm().script({ reply: 'Hi there.' });
    const opened = await ask(t, { visitor_id: visitor, message: 'Hello' });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const conversation = (await Conversation.findOne({ where: { publicId: opened.events[0]!.data.conversation_id } }))!;
    // The visitor actor has read the block state (not blocked) before the agent blocks.
    assert.equal((await beat(t, visitor, conversation.publicId)).status, 200);
    const seen = (await Visitor.findOne({ where: { companyId: t.company.id, visitorKey: visitor } }))!;
    const pageViews = () => PageView.count({ where: { visitorId: seen.id } });
    const viewsBefore = await pageViews();

    assert.equal((await act(t.token, conversation, 'block')).status, 200);
    const before = await lines(conversation);
    // The visitor actor learns of the block from the conversation actor, not from a query per beat.
    const refusedBeat = await eventually(() => beat(t, visitor, conversation.publicId), (reply) => reply.status === 403);
    assertBlocked(refusedBeat, 'heartbeat');
    assertBlocked(await beat(t, visitor), 'heartbeat without a conversation');
    assertBlocked(await ask(t, { visitor_id: visitor, message: 'Let me in', conversation_id: conversation.publicId }), 'stream');
    assertBlocked(await ask(t, { visitor_id: visitor, message: 'A new chat then' }), 'stream without a conversation');
    assertBlocked(await widgetPost(t, '/handoff', conversation), 'handoff');
    assertBlocked(await widgetPost(t, '/chat/reset', conversation), 'reset');

    const after = await fresh(conversation);
    assert.equal(await lines(conversation), before);
    assert.deepEqual([after.status, after.handoffState], ['bot', 'bot_active'], 'neither closed nor handed off');
    assert.equal(await Conversation.count({ where: { chatbotId: t.bot.id, visitorKey: visitor } }), 1, 'no new conversation');
    assert.equal(await pageViews(), viewsBefore);

    assert.equal((await act(t.token, conversation, 'unblock')).status, 200);
    const restoredBeat = await eventually(() => beat(t, visitor, conversation.publicId), (reply) => reply.status === 200);
    assert.equal(restoredBeat.status, 200, JSON.stringify(restoredBeat.body));
    fakeLlm().script({ reply: 'Welcome back.' });
    const again = await ask(t, { visitor_id: visitor, message: 'Thanks', conversation_id: conversation.publicId });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.events.at(-1)!.event, 'done');
    assert.equal(await lines(conversation), before + 2);
  });

  it('the block outlives the conversation: once it is closed, the visitor cannot open a new one', async () => {
    const t = await tenant();
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Spam']] });
    assert.equal((await act(t.token, conversation, 'block')).status, 200);
    const resolved = await request('POST', `/api/agent/conversations/${conversation.publicId}/resolve`, { token: t.token });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));

    // A visitor actor that never saw them reads the block with their latest conversation.
    assertBlocked(await beat(t, conversation.visitorKey), 'heartbeat');
    assertBlocked(await ask(t, { visitor_id: conversation.visitorKey, message: 'Hello again' }), 'stream');
    assert.equal(await Conversation.count({ where: { chatbotId: t.bot.id, visitorKey: conversation.visitorKey } }), 1);
    assert.equal(await Visitor.count({ where: { companyId: t.company.id, visitorKey: conversation.visitorKey } }), 0, 'no presence recorded');
  });

  it('v1 send answers 403 for a blocked visitor, with or without conversation_id, and closes nothing', async () => {
    const t = await make.v1Tenant();
    await make.providerKey(t.company, t.bot.provider);
    const path = `/api/v1/chatbots/${t.bot.publicKey}/messages`;
    fakeLlm().script({ reply: 'Hello.' });
    const opened = await request('POST', path, { token: t.token, body: { message: 'Hi', visitor_id: 'crm-blocked' } });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const conversation = (await Conversation.findOne({ where: { publicId: opened.body.conversation_id } }))!;
    await server().actors.ask('conversation', conversation.publicId, { type: 'block', userId: t.owner.id, blocked: true });

    const before = await lines(conversation);
    assertBlocked(await request('POST', path, { token: t.token, body: { message: 'More', visitor_id: 'crm-blocked', conversation_id: conversation.publicId } }), 'v1 send');
    assertBlocked(await request('POST', path, { token: t.token, body: { message: 'New', visitor_id: 'crm-blocked' } }), 'v1 send without conversation_id');
    assert.equal(await lines(conversation), before);
    assert.equal((await fresh(conversation)).status, 'bot', 'the open conversation was not closed to start another');
    assert.equal(await Conversation.count({ where: { chatbotId: t.bot.id, visitorKey: 'crm-blocked' } }), 1);
  });
});

describe('the flood rule', () => {
  beforeEach(() => fakeLlm().reset());

  /** A conversation whose visitor already sent `sent` messages within the last minute. */
  async function flooded(t: Tenant, sent: number) {
    return make.conversation(t.bot, { messages: Array.from({ length: sent }, (_, i) => ['visitor', `message ${i + 1}`] as ['visitor', string]) });
  }

  const send = (t: Tenant, conversation: Conversation, message: string) =>
    ask(t, { visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, message });

  it('the 10th message in 60 s is answered; the 11th is refused (429 `flooding`), stored nowhere, and counts a strike', async () => {
    const t = await tenant();
    const conversation = await flooded(t, 9);
    fakeLlm().script({ reply: 'Noted.' });
    const tenth = await send(t, conversation, 'message 10');
    assert.equal(tenth.status, 200, JSON.stringify(tenth.body));
    const before = await lines(conversation);

    const eleventh = await send(t, conversation, 'message 11');
    assert.equal(eleventh.status, 429, JSON.stringify(eleventh.body));
    assert.equal(eleventh.body.code, 'flooding');
    assert.ok(eleventh.body.message);
    const wait = Number(eleventh.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.equal(await lines(conversation), before);
    const after = await fresh(conversation);
    assert.deepEqual([after.abuseStrikes, after.blocked], [1, false]);
  });

  it('the third strike blocks the conversation (event `blocked`, source system); unblock forgives the strikes', async () => {
    const t = await tenant();
    const conversation = await flooded(t, 10);
    for (const strike of [1, 2, 3]) {
      const refused = await send(t, conversation, `strike ${strike}`);
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal((await fresh(conversation)).abuseStrikes, strike);
    }
    assert.equal((await fresh(conversation)).blocked, true);
    assert.deepEqual(await eventsOf(conversation), [['blocked', 'system', null]]);
    assertBlocked(await send(t, conversation, 'and again'), 'stream after the third strike');
    assertBlocked(await beat(t, conversation.visitorKey, conversation.publicId), 'heartbeat after the third strike');
    assert.equal(await lines(conversation), 10);

    const unblocked = await act(t.token, conversation, 'unblock');
    assert.deepEqual(unblocked.body, { blocked: false });
    assert.deepEqual([(await fresh(conversation)).abuseStrikes, (await fresh(conversation)).blocked], [0, false]);
    // The minute passes: the earlier messages leave the window.
    await server().ctx.db.sequelize.query(`UPDATE messages SET created_at = now() - interval '2 minutes' WHERE conversation_id = ${conversation.id}`);
    fakeLlm().script({ reply: 'Back again.' });
    const restored = await send(t, conversation, 'calm now');
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.events.at(-1)!.event, 'done');
  });
});
