import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Conversation, ConversationEvent, Message, Note } from '../../src/models';
import { createTag } from '../../src/domain/catalogue/createTag';
import { server } from '../support/hooks';
import { request } from '../support/http';
import { agentTenant } from '../support/agent';
import { freshIp } from '../support/portal';
import { connect, expectedAuth, Inbox, subscribe, type ClientSocket } from '../support/sockets';
import * as make from '../support/factories';

const DISPLAY_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2}$/;
const post = (token: string, path: string, body?: unknown) => request('POST', `/api/agent${path}`, { token, body });

async function tenantWithConversation() {
  const tenant = await agentTenant();
  const conversation = await make.conversation(tenant.bot, { messages: [['visitor', 'Hello, is anyone there?']] });
  return { ...tenant, conversation, path: `/conversations/${conversation.publicId}` };
}

const eventsOf = async (conversation: Conversation) =>
  (await ConversationEvent.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] })).map((event) => `${event.type}/${event.source}`);

describe('agent: conversation actions', () => {
  describe('POST /conversations/{conversation}/reply', () => {
    it('stores the reply, takes the conversation over and answers {message} in display time', async () => {
      const { token, agent, conversation, path } = await tenantWithConversation();
      const reply = await post(token, `${path}/reply`, { body: 'Hi! I can help.' });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body), ['message']);
      const { message } = reply.body;
      assert.deepEqual({ ...message, at: undefined }, { id: message.id, role: 'agent', content: 'Hi! I can help.', at: undefined });
      assert.match(message.at, DISPLAY_TIME);
      const stored = await Message.findByPk(message.id);
      assert.deepEqual([stored?.role, stored?.authorUserId, stored?.conversationId], ['agent', agent.id, conversation.id]);
      await conversation.reload();
      assert.deepEqual([conversation.status, conversation.handoffState, conversation.assignedUserId], ['agent', 'human_connected', agent.id]);
      assert.deepEqual(await eventsOf(conversation), ['human_connected/agent']);
    });

    it('a repeated client_id returns the first message with duplicate: true, also under concurrent repeats', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      const replies = await Promise.all(Array.from({ length: 6 }, () => post(token, `${path}/reply`, { body: 'Only once', client_id: 'tap-1' })));
      assert.deepEqual(new Set(replies.map((reply) => reply.status)), new Set([200]));
      assert.equal(new Set(replies.map((reply) => reply.body.message.id)).size, 1);
      assert.equal(replies.filter((reply) => reply.body.duplicate === true).length, 5);
      assert.equal(replies.filter((reply) => !('duplicate' in reply.body)).length, 1);
      assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 1);
      const other = await post(token, `${path}/reply`, { body: 'Another', client_id: 'tap-2' });
      assert.notEqual(other.body.message.id, replies[0]!.body.message.id);
    });

    it('422: whitespace-only, too long, client_id too long; nothing stored', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      for (const body of [{ body: ' \n\t ' }, { body: 'x'.repeat(4001) }, { body: 'ok', client_id: 'c'.repeat(65) }, {}, { body: 42 }]) {
        const reply = await post(token, `${path}/reply`, body);
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.ok(reply.body.message && reply.body.errors, JSON.stringify(reply.body));
      }
      assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 0);
    });

    it('the visitor receives the reply on their next heartbeat', async () => {
      const { token, bot, conversation, path } = await tenantWithConversation();
      await post(token, `${path}/reply`, { body: 'Welcome back' });
      const beat = await request('POST', `/widget/${bot.publicKey}/heartbeat`, {
        body: { visitor_id: conversation.visitorKey, url: 'https://shop.example/', conversation_id: conversation.publicId },
        headers: { 'X-Forwarded-For': freshIp() },
      });
      assert.equal(beat.status, 200);
      assert.deepEqual(beat.body.messages.map((m: { content: string }) => m.content), ['Welcome back']);
    });
  });

  describe('takeover, release, resolve, reopen', () => {
    it('walks the state machine from the agent side with events', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      assert.deepEqual((await post(token, `${path}/takeover`)).body, { status: 'agent' });
      assert.deepEqual((await post(token, `${path}/takeover`)).body, { status: 'agent' });
      assert.deepEqual((await post(token, `${path}/release`)).body, { status: 'bot' });
      assert.deepEqual((await post(token, `${path}/resolve`)).body, { status: 'closed', resolution: 'resolved' });
      assert.deepEqual((await post(token, `${path}/reopen`)).body, { status: 'bot' });
      await conversation.reload();
      assert.deepEqual([conversation.status, conversation.handoffState, conversation.resolution, conversation.assignedUserId], ['bot', 'bot_active', null, null]);
      assert.deepEqual(await eventsOf(conversation), ['human_connected/agent', 'released/agent', 'resolved/agent', 'reopened/agent']);
    });

    it('a second agent taking over reassigns the conversation to them', async () => {
      const { token, company, conversation, path } = await tenantWithConversation();
      const colleague = await make.user(company, 'agent');
      await post(token, `${path}/takeover`);
      await post(await make.token(colleague, 'agent'), `${path}/takeover`);
      assert.equal((await conversation.reload()).assignedUserId, colleague.id);
    });

    it('resolving an escalated wait clears the escalation', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      await Conversation.update({ handoffState: 'handoff_pending', escalated: true, handoffRequestedAt: new Date() }, { where: { id: conversation.id } });
      assert.deepEqual((await post(token, `${path}/resolve`)).body, { status: 'closed', resolution: 'resolved' });
      await conversation.reload();
      assert.deepEqual([conversation.escalated, conversation.handoffState], [false, 'bot_active']);
    });
  });

  describe('notes', () => {
    it('201 {note: {id, body, author, at}}; stored, never shown to the visitor', async () => {
      const { token, agent, conversation, path } = await tenantWithConversation();
      const reply = await post(token, `${path}/notes`, { body: 'VIP customer, be nice.' });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      assert.deepEqual({ ...reply.body.note, at: undefined }, { id: reply.body.note.id, body: 'VIP customer, be nice.', author: agent.name, at: undefined });
      assert.match(reply.body.note.at, DISPLAY_TIME);
      const stored = await Note.findByPk(reply.body.note.id);
      assert.deepEqual([stored?.conversationId, stored?.userId], [conversation.id, agent.id]);
      assert.equal(await Message.count({ where: { conversationId: conversation.id, content: 'VIP customer, be nice.' } }), 0);
    });

    it('422 for whitespace and over 4000 characters', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      assert.equal((await post(token, `${path}/notes`, { body: '   ' })).status, 422);
      assert.equal((await post(token, `${path}/notes`, { body: 'n'.repeat(4001) })).status, 422);
      assert.equal(await Note.count({ where: { conversationId: conversation.id } }), 0);
    });
  });

  describe('tags', () => {
    it('attaches and detaches catalogue tags once each, with tag_added / tag_removed events', async () => {
      const { token, company, conversation, path } = await tenantWithConversation();
      const tag = await createTag(company.id, { name: 'billing', color: '#ff0000' });
      assert.deepEqual((await post(token, `${path}/tags`, { tag_id: tag.id })).body, { attached: tag.id });
      assert.deepEqual((await post(token, `${path}/tags`, { tag_id: tag.id })).body, { attached: tag.id });
      const detached = await request('DELETE', `/api/agent${path}/tags/${tag.id}`, { token });
      assert.deepEqual([detached.status, detached.body], [200, { detached: tag.id }]);
      assert.deepEqual(await eventsOf(conversation), ['tag_added/agent', 'tag_removed/agent']);
    });

    it('422 for a tag outside the catalogue (another workspace\'s) or not an integer; 404 to detach an unknown tag', async () => {
      const { token, conversation, path } = await tenantWithConversation();
      const other = await make.workspace();
      const foreign = await createTag(other.company.id, { name: 'foreign' });
      for (const body of [{ tag_id: foreign.id }, { tag_id: 'billing' }, { tag_id: 1.5 }, {}]) {
        const reply = await post(token, `${path}/tags`, body);
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.ok(reply.body.errors.tag_id);
      }
      assert.equal((await request('DELETE', `/api/agent${path}/tags/${foreign.id}`, { token })).status, 404);
      assert.equal((await request('DELETE', `/api/agent${path}/tags/abc`, { token })).status, 404);
      assert.deepEqual(await eventsOf(conversation), []);
    });
  });

  describe('every action', () => {
    const actions: Array<[string, unknown]> = [
      ['reply', { body: 'hi' }],
      ['takeover', undefined],
      ['release', undefined],
      ['resolve', undefined],
      ['reopen', undefined],
      ['notes', { body: 'note' }],
      ['tags', { tag_id: 1 }],
    ];

    it('404 for an unknown, malformed or foreign conversation', async () => {
      const { token } = await agentTenant();
      const foreign = await tenantWithConversation();
      for (const [action, body] of actions) {
        for (const id of [randomUUID(), 'not-a-uuid', foreign.conversation.publicId]) {
          const reply = await post(token, `/conversations/${id}/${action}`, body);
          assert.equal(reply.status, 404, `${action} ${id}`);
          assert.equal(reply.body.message, 'Conversation not found.');
        }
      }
      assert.equal(await Message.count({ where: { conversationId: foreign.conversation.id } }), 1);
    });

    it('403 for a role without handle-conversations, 401 without a token, 403 with another surface\'s token', async () => {
      const { company, conversation, path, owner } = await tenantWithConversation();
      const viewer = await make.user(company, 'viewer');
      const viewerToken = await make.token(viewer, 'agent');
      for (const [action, body] of actions) {
        assert.equal((await post(viewerToken, `${path}/${action}`, body)).status, 403, action);
        assert.equal((await request('POST', `/api/agent${path}/${action}`, { body })).status, 401, action);
        assert.equal((await post(await make.token(owner, 'api'), `${path}/${action}`, body)).status, 403, action);
      }
      assert.equal((await conversation.reload()).status, 'bot');
    });
  });

  describe('realtime', () => {
    let socket: ClientSocket | undefined;
    afterEach(() => socket?.close());

    it('agents on private-company.<id> see the reply and the takeover with a rising seq', async () => {
      const { token, company, path } = await tenantWithConversation();
      socket = await connect(server().url, { token });
      const channel = `private-company.${company.id}`;
      assert.deepEqual(await subscribe(socket, channel, expectedAuth(socket.id!, channel)), { ok: true });
      const inbox = new Inbox(socket);
      const reply = await post(token, `${path}/reply`, { body: 'Live!' });
      const created = await inbox.next((r) => r.payload.event === 'message.created');
      const updated = await inbox.next((r) => r.payload.event === 'conversation.updated');
      assert.equal((created.payload.data as { id: number }).id, reply.body.message.id);
      assert.equal((updated.payload.data as { status: string }).status, 'agent');
      assert.ok(created.payload.seq > updated.payload.seq, 'the takeover is written before the message');
    });
  });
});
