import { strict as assert } from 'node:assert';
import { Conversation, ConversationEvent, Message } from '../../src/models';
import { fakeLlm, server } from '../support/hooks';
import { get, request } from '../support/http';
import * as make from '../support/factories';
import { ask, newVisitor, widgetTenant } from '../support/widget';

const actors = () => server().actors;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

async function opened(tenant: Awaited<ReturnType<typeof widgetTenant>>, visitor = newVisitor()) {
  fakeLlm().script({ reply: 'Hello! How can I help?' });
  const reply = await ask(tenant, { visitor_id: visitor, message: 'Hi' });
  const conversationId: string = reply.events[0]!.data.conversation_id;
  return { visitor, conversationId, row: async () => (await Conversation.findOne({ where: { publicId: conversationId } }))! };
}

const post = (tenant: { base: string; ip: string }, path: string, body: unknown) => request('POST', `${tenant.base}${path}`, { body, headers: { 'X-Forwarded-For': tenant.ip } });

describe('widget conversations: state machine, handoff, reset, catch-up', () => {
  beforeEach(() => fakeLlm().reset());

  it('handoff: the AI stays silent while a person is awaited and while one holds the conversation; release hands back', async () => {
    const tenant = await widgetTenant();
    const { visitor, conversationId, row } = await opened(tenant);

    const handoff = await post(tenant, '/handoff', { visitor_id: visitor, conversation_id: conversationId });
    assert.equal(handoff.status, 200);
    assert.deepEqual(Object.keys(handoff.body).sort(), ['handoff_state', 'status', 'wait_remaining']);
    assert.equal(handoff.body.handoff_state, 'handoff_pending');
    assert.equal(handoff.body.status, 'bot');
    assert.ok(handoff.body.wait_remaining > 290 && handoff.body.wait_remaining <= 300, String(handoff.body.wait_remaining));
    const again = await post(tenant, '/handoff', { visitor_id: visitor, conversation_id: conversationId });
    assert.equal(again.body.handoff_state, 'handoff_pending', 'asking twice is harmless');

    const calls = fakeLlm().requests.length;
    const waiting = await ask(tenant, { visitor_id: visitor, message: 'Hello? A human please', conversation_id: conversationId });
    assert.deepEqual(waiting.events.map((e) => e.event), ['meta', 'error']);
    assert.equal(waiting.events[1]!.data.code, 'handoff');

    const { owner } = tenant;
    const taken = await actors().ask('conversation', conversationId, { type: 'takeover', userId: owner.id });
    assert.deepEqual([taken.status, taken.handoffState, taken.waitRemaining], ['agent', 'human_connected', null]);
    const held = await ask(tenant, { visitor_id: visitor, message: 'Are you a person?', conversation_id: conversationId });
    assert.deepEqual(held.events.map((e) => e.event), ['meta', 'error']);
    assert.equal(held.events[1]!.data.code, 'handoff');
    assert.equal(fakeLlm().requests.length, calls, 'no AI call while pending or held');

    await actors().ask('conversation', conversationId, { type: 'release', userId: owner.id });
    fakeLlm().script({ reply: 'Back to the bot.' });
    const back = await ask(tenant, { visitor_id: visitor, message: 'Thanks', conversation_id: conversationId });
    assert.equal(back.events.at(-1)!.event, 'done');

    const events = await ConversationEvent.findAll({ where: { conversationId: (await row()).id }, order: [['id', 'ASC']] });
    assert.deepEqual(events.map((e) => [e.type, e.source]), [['handoff_requested', 'visitor'], ['human_connected', 'agent'], ['released', 'agent']]);
  });

  it('transitions one by one: takeover, agent reply, release, resolve, visitor reopen, agent reopen', async () => {
    const tenant = await widgetTenant();
    const { visitor, conversationId, row } = await opened(tenant);
    const agent = await make.user(tenant.company, 'agent');
    const state = async () => {
      const c = await row();
      return [c.status, c.handoffState, c.assignedUserId, c.resolution];
    };

    await actors().ask('conversation', conversationId, { type: 'takeover', userId: agent.id });
    assert.deepEqual(await state(), ['agent', 'human_connected', agent.id, null]);
    await actors().ask('conversation', conversationId, { type: 'release', userId: agent.id });
    assert.deepEqual(await state(), ['bot', 'bot_active', null, null]);
    const replied = await actors().ask('conversation', conversationId, { type: 'agentReply', userId: agent.id, text: 'Hi, Sam here.' });
    assert.deepEqual([replied.status, replied.duplicate], ['agent', false]);
    assert.deepEqual(await state(), ['agent', 'human_connected', agent.id, null], 'a reply takes over');
    await actors().ask('conversation', conversationId, { type: 'resolve', userId: agent.id });
    assert.deepEqual(await state(), ['closed', 'bot_active', agent.id, 'resolved']);

    fakeLlm().script({ reply: 'Welcome back!' });
    const reopened = await ask(tenant, { visitor_id: visitor, message: 'One more thing', conversation_id: conversationId });
    assert.equal(reopened.events[0]!.data.status, 'bot');
    assert.equal(reopened.events.at(-1)!.event, 'done', 'the AI answers the reopened conversation');
    assert.deepEqual(await state(), ['bot', 'bot_active', null, null]);

    await actors().ask('conversation', conversationId, { type: 'resolve', userId: agent.id });
    await actors().ask('conversation', conversationId, { type: 'reopen', userId: agent.id });
    assert.deepEqual(await state(), ['bot', 'bot_active', null, null]);

    const events = await ConversationEvent.findAll({ where: { conversationId: (await row()).id }, order: [['id', 'ASC']] });
    assert.deepEqual(events.map((e) => `${e.type}/${e.source}`), [
      'human_connected/agent', 'released/agent', 'human_connected/agent', 'resolved/agent', 'reopened/visitor', 'resolved/agent', 'reopened/agent',
    ]);
  });

  it('an agent reply with a repeated client_id is stored once and answers duplicate', async () => {
    const tenant = await widgetTenant();
    const { conversationId, row } = await opened(tenant);
    const first = await actors().ask('conversation', conversationId, { type: 'agentReply', userId: tenant.owner.id, text: 'On it.', clientId: 'r-1' });
    const second = await actors().ask('conversation', conversationId, { type: 'agentReply', userId: tenant.owner.id, text: 'On it.', clientId: 'r-1' });
    assert.deepEqual([second.duplicate, second.message.id], [true, first.message.id]);
    assert.equal(await Message.count({ where: { conversationId: (await row()).id, role: 'agent' } }), 1);
  });

  it('state endpoints: the latest conversation with its transcript, and the catch-up after a message id', async () => {
    const tenant = await widgetTenant();
    const { visitor, conversationId } = await opened(tenant);
    await actors().ask('conversation', conversationId, { type: 'agentReply', userId: tenant.owner.id, text: 'A person here.' });

    const latest = await get(`${tenant.base}/conversation?visitor_id=${visitor}`);
    assert.equal(latest.status, 200);
    assert.deepEqual(Object.keys(latest.body).sort(), ['conversation_id', 'handoff_state', 'messages', 'status', 'wait_remaining']);
    assert.equal(latest.body.conversation_id, conversationId);
    assert.deepEqual(latest.body.messages.map((m: { role: string }) => m.role), ['visitor', 'assistant', 'agent']);
    for (const message of latest.body.messages) {
      assert.deepEqual(Object.keys(message).sort(), ['at', 'content', 'id', 'role']);
      assert.match(message.at, ISO_WITH_OFFSET);
    }
    assert.deepEqual([latest.body.status, latest.body.handoff_state, latest.body.wait_remaining], ['agent', 'human_connected', null]);

    const after = latest.body.messages[0].id;
    const catchUp = await get(`${tenant.base}/conversations/${conversationId}?visitor_id=${visitor}&after=${after}`);
    assert.deepEqual(Object.keys(catchUp.body).sort(), ['handoff_state', 'messages', 'status', 'wait_remaining']);
    assert.deepEqual(catchUp.body.messages.map((m: { content: string }) => m.content), ['Hello! How can I help?', 'A person here.']);

    assert.equal((await get(`${tenant.base}/conversation?visitor_id=someone-else`)).status, 404);
    assert.equal((await get(`${tenant.base}/conversations/${conversationId}?visitor_id=someone-else`)).status, 404);
    assert.equal((await get(`${tenant.base}/conversations/not-a-uuid?visitor_id=${visitor}`)).status, 404);
    assert.equal((await get(`${tenant.base}/conversation`)).status, 422);
    const other = await widgetTenant();
    assert.equal((await get(`${other.base}/conversations/${conversationId}?visitor_id=${visitor}`)).status, 404, 'another chatbot');
  });

  it('chat reset closes the visitor\'s conversation, idempotently; the next message opens a fresh one', async () => {
    const tenant = await widgetTenant();
    const { visitor, conversationId, row } = await opened(tenant);
    assert.equal((await post(tenant, '/chat/reset', { visitor_id: 'intruder', conversation_id: conversationId })).status, 404);
    for (let i = 0; i < 2; i++) {
      const reset = await post(tenant, '/chat/reset', { visitor_id: visitor, conversation_id: conversationId });
      assert.deepEqual([reset.status, reset.body], [200, { closed: true, conversation_id: conversationId }]);
    }
    assert.equal((await row()).status, 'closed');
    assert.equal((await post(tenant, '/chat/reset', { visitor_id: visitor })).status, 422);
    fakeLlm().script({ reply: 'Fresh start.' });
    const fresh = await ask(tenant, { visitor_id: visitor, message: 'New question' });
    assert.notEqual(fresh.events[0]!.data.conversation_id, conversationId);
  });

  it('config: the public settings of an active chatbot; 404 for unknown or disabled keys', async () => {
    const tenant = await widgetTenant();
    const reply = await get(`${tenant.base}/config`);
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body).sort(), ['branding', 'identity_required', 'name', 'poll_seconds', 'powered_by', 'prechat', 'public_key', 'realtime', 'welcome_message']);
    assert.deepEqual(reply.body.realtime, { transport: 'socket.io', url: 'http://parley.test', path: '/socket.io' });
    assert.deepEqual(Object.keys(reply.body.prechat).sort(), ['enabled', 'fields', 'greeting']);
    assert.deepEqual(Object.keys(reply.body.prechat.fields[0]).sort(), ['field', 'label', 'required', 'type']);
    assert.equal(reply.body.identity_required, false);
    assert.equal(typeof reply.body.poll_seconds, 'number');
    assert.equal(reply.body.branding.theme, 'minimal');
    await tenant.bot.update({ isActive: false });
    assert.equal((await get(`${tenant.base}/config`)).status, 404);
    assert.equal((await get('/widget/pk_nope/config')).status, 404);
  });
});
