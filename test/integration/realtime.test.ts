import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { issueToken, revokeToken } from '../../src/domain/accounts/tokens';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import type { RealtimeEventName } from '../../src/realtime/events';
import { server } from '../support/hooks';
import { request } from '../support/http';
import * as make from '../support/factories';
import { connect, expectedAuth, Inbox, refused, subscribe, type ClientSocket, emitRaw } from '../support/sockets';

const authorize = (token: string | undefined, body: unknown) => request('POST', '/api/agent/broadcasting/auth', { token, body });

/** A workspace with an agent, their agent token, a chatbot and one conversation. */
async function tenant() {
  const { company, owner } = await make.workspace();
  const agent = await make.user(company, 'agent');
  const bot = await make.chatbot(company);
  const conversation = await make.conversation(bot);
  return { company, owner, agent, bot, conversation, token: await make.token(agent, 'agent') };
}

describe('realtime (Socket.IO at /socket.io, POST /api/agent/broadcasting/auth)', () => {
  const sockets: ClientSocket[] = [];
  const open = async (auth: Record<string, unknown>) => {
    const socket = await connect(server().url, auth);
    sockets.push(socket);
    return socket;
  };
  /** Subscribes through the real endpoint and asserts the ack. */
  const join = async (socket: ClientSocket, token: string, channel: string) => {
    const reply = await authorize(token, { socket_id: socket.id, channel_name: channel });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(await subscribe(socket, channel, reply.body.auth), { ok: true });
  };
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  describe('broadcasting/auth', () => {
    it('401 without a token, 403 with a token of another surface, 422 without the fields', async () => {
      const { company, owner } = await tenant();
      const body = { socket_id: 'abc', channel_name: `private-company.${company.id}` };
      assert.equal((await authorize(undefined, body)).status, 401);
      const wrong = await authorize(await make.token(owner, 'api'), body);
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.message, 'This token cannot be used for this API.');
      const invalid = await authorize(await make.token(owner, 'agent'), { socket_id: 5 });
      assert.equal(invalid.status, 422);
      assert.deepEqual(Object.keys(invalid.body.errors).sort(), ['channel_name', 'socket_id']);
    });

    it('403 for another company, another user, a foreign or unknown conversation and unknown channel kinds', async () => {
      const a = await tenant();
      const b = await tenant();
      const refusedChannels = [
        `private-company.${b.company.id}`,
        `private-user.${a.owner.id}`,
        `private-user.${b.agent.id}`,
        `private-conversation.${b.conversation.publicId}`,
        `private-conversation.${randomUUID()}`,
        'private-conversation.not-a-uuid',
        `private-conversation.${a.conversation.publicId.toUpperCase()}`,
        `presence-company.${a.company.id}`,
        `private-company.${a.company.id}x`,
        'public',
      ];
      for (const channel of refusedChannels) {
        const reply = await authorize(a.token, { socket_id: 'socket-1', channel_name: channel });
        assert.equal(reply.status, 403, channel);
        assert.equal(reply.body.code, 'forbidden');
        assert.equal(reply.body.message, 'You are not allowed to join this channel.');
      }
    });

    it('signs socket_id:channel_name with the broadcasting key for the own company, self and own conversations', async () => {
      const a = await tenant();
      for (const channel of [`private-company.${a.company.id}`, `private-user.${a.agent.id}`, `private-conversation.${a.conversation.publicId}`]) {
        const reply = await authorize(a.token, { socket_id: '1234.5678', channel_name: channel });
        assert.equal(reply.status, 200);
        assert.deepEqual(reply.body, { auth: expectedAuth('1234.5678', channel) });
      }
    });
  });

  describe('agent sockets', () => {
    it('refuses a connection without a token, with an api token, a revoked token or in a suspended workspace', async () => {
      const { company, owner } = await tenant();
      const none = await refused(server().url, {});
      assert.equal(none.message, 'Unauthenticated.');
      assert.equal(none.data?.code, 'unauthenticated');
      assert.equal((await refused(server().url, { token: 'garbage' })).message, 'Unauthenticated.');
      const api = await refused(server().url, { token: await make.token(owner, 'api') });
      assert.equal(api.data?.code, 'forbidden');
      assert.match(api.message, /agent token/);
      const { plain, token } = await issueToken(owner, 'agent');
      (await open({ token: plain })).close();
      await revokeToken(token.id);
      assert.equal((await refused(server().url, { token: plain })).message, 'Unauthenticated.');
      const live = await make.token(owner, 'agent');
      await setWorkspaceSuspended(company, true);
      assert.equal((await refused(server().url, { token: live })).message, 'This workspace is suspended.');
    });

    it('subscribes with a real authorization and receives {channel, event, data, seq}', async () => {
      const a = await tenant();
      const socket = await open({ token: a.token });
      const inbox = new Inbox(socket);
      const channel = `private-company.${a.company.id}`;
      await join(socket, a.token, channel);
      emitRaw(server().realtime, channel, 'conversation.created', { id: a.conversation.publicId }, 7);
      const got = await inbox.next((r) => r.name === 'conversation.created');
      assert.deepEqual(got.payload, { channel, event: 'conversation.created', data: { id: a.conversation.publicId }, seq: 7 });
    });

    it('refuses a wrong signature, a signature for another socket, a forged or foreign company channel', async () => {
      const a = await tenant();
      const b = await tenant();
      const socket = await open({ token: a.token });
      const own = `private-company.${a.company.id}`;
      const foreign = `private-company.${b.company.id}`;
      const keyId = expectedAuth('x', own).split(':')[0];
      const invalid = { ok: false, message: 'Invalid channel authorization.' };
      assert.deepEqual(await subscribe(socket, own, `${keyId}:${'0'.repeat(64)}`), invalid);
      assert.deepEqual(await subscribe(socket, own, expectedAuth(socket.id!, own).toUpperCase()), invalid);
      const other = await authorize(a.token, { socket_id: 'another-socket', channel_name: own });
      assert.deepEqual(await subscribe(socket, own, other.body.auth), invalid);
      // A cannot obtain B's channel, and even B's genuine signature for A's socket does not let A in.
      assert.equal((await authorize(a.token, { socket_id: socket.id, channel_name: foreign })).status, 403);
      const signedByB = await authorize(b.token, { socket_id: socket.id, channel_name: foreign });
      assert.equal(signedByB.status, 200);
      assert.deepEqual(await subscribe(socket, foreign, signedByB.body.auth), { ok: false, message: 'You may not join this channel.' });
      assert.deepEqual(await subscribe(socket, 'presence-x', 'a:b'), { ok: false, message: 'Unknown channel.' });
      assert.deepEqual(await subscribe(socket, own, undefined as unknown as string), { ok: false, message: 'The subscribe payload must be {channel, auth}.' });
    });

    it('survives subscribes without an ack, and unsubscribe stops delivery', async () => {
      const a = await tenant();
      const socket = await open({ token: a.token });
      const inbox = new Inbox(socket);
      const company = `private-company.${a.company.id}`;
      const self = `private-user.${a.agent.id}`;
      socket.emit('subscribe', { channel: company, auth: 'nope' });
      socket.emit('subscribe');
      assert.deepEqual(await socket.timeout(3000).emitWithAck('subscribe'), { ok: false, message: 'The subscribe payload must be {channel, auth}.' });
      await join(socket, a.token, company);
      await join(socket, a.token, self);
      assert.deepEqual(await socket.timeout(3000).emitWithAck('unsubscribe', { channel: company }), { ok: true });
      emitRaw(server().realtime, company, 'visitor.online', { n: 1 }, 0);
      emitRaw(server().realtime, self, 'conversation.updated', { n: 2 }, 1);
      await inbox.next((r) => r.payload.channel === self);
      assert.deepEqual(inbox.received.map((r) => r.payload.channel), [self]);
    });
  });

  describe('widget sockets', () => {
    it("receive message.created, conversation.updated and agents' typing of their own conversation, never deltas or their own typing", async () => {
      const a = await tenant();
      const widget = await open({ key: a.bot.publicKey, visitor_id: a.conversation.visitorKey, conversation_id: a.conversation.publicId });
      const agent = await open({ token: a.token });
      const widgetInbox = new Inbox(widget);
      const agentInbox = new Inbox(agent);
      const channel = `private-conversation.${a.conversation.publicId}`;
      await join(agent, a.token, channel);
      // The agent's arrival on the thread is announced to it first (conversation watchers).
      await agentInbox.next((r) => r.name === 'conversation.watchers');
      assert.deepEqual(await subscribe(widget, channel, expectedAuth(widget.id!, channel)), {
        ok: false,
        message: 'Widget connections cannot subscribe to channels.',
      });
      const emit = (channel: string, event: RealtimeEventName, data: unknown, seq: number) => emitRaw(server().realtime, channel, event, data, seq);
      emit(channel, 'message.delta', { delta: 'Hel' }, 3);
      emit(channel, 'typing', { who: 'visitor' }, 3);
      emit(channel, 'typing', { who: 'agent' }, 3);
      emit(channel, 'conversation.updated', { status: 'agent' }, 4);
      emit(channel, 'message.created', { id: 1 }, 5);
      await agentInbox.next((r) => r.name === 'message.created');
      const created = await widgetInbox.next((r) => r.name === 'message.created');
      assert.deepEqual(created.payload, { channel, event: 'message.created', data: { id: 1 }, seq: 5 });
      assert.deepEqual(widgetInbox.received.map((r) => [r.name, r.payload.data]), [['typing', { who: 'agent' }], ['conversation.updated', { status: 'agent' }], ['message.created', { id: 1 }]]);
      assert.deepEqual(agentInbox.received.map((r) => r.name), ['conversation.watchers', 'message.delta', 'typing', 'typing', 'conversation.updated', 'message.created']);
    });

    it('is refused for a wrong visitor, another chatbot, an inactive chatbot or a malformed handshake', async () => {
      const a = await tenant();
      const otherBot = await make.chatbot(a.company);
      const auth = { key: a.bot.publicKey, visitor_id: a.conversation.visitorKey, conversation_id: a.conversation.publicId };
      const notAvailable = 'This conversation is not available to this visitor.';
      assert.equal((await refused(server().url, { ...auth, visitor_id: 'someone-else' })).message, notAvailable);
      assert.equal((await refused(server().url, { ...auth, key: otherBot.publicKey })).message, notAvailable);
      assert.equal((await refused(server().url, { ...auth, conversation_id: randomUUID() })).message, notAvailable);
      assert.equal((await refused(server().url, { ...auth, conversation_id: 'nope' })).message, 'Unauthenticated.');
      await a.bot.update({ isActive: false });
      assert.equal((await refused(server().url, auth)).message, 'This chatbot is not available.');
    });
  });
});
