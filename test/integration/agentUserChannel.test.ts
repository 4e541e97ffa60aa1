import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { visitorDisplayName } from '../../src/domain/visitors/displayName';
import { Conversation, type User } from '../../src/models';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { get, request } from '../support/http';
import { freshIp } from '../support/portal';
import { connect, Inbox, subscribe, type ClientSocket, type Received } from '../support/sockets';

const APP_URL = 'http://parley.test';
const post = (token: string, path: string, body?: unknown) => request('POST', `/api/agent${path}`, { token, body });
const visitorKey = () => `visitor-${randomBytes(4).toString('hex')}`;

/**
 * `private-user.<id>`: what reaches one agent wherever they are signed in. Each test follows the
 * agent's channel from a second device (another token, another socket) than the one that acts.
 */
describe('the agent\'s own channel (private-user.<id>)', function () {
  this.timeout(30_000);
  const sockets: ClientSocket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  /** A device of `user` (a token of its own) following their user channel. */
  async function device(user: User): Promise<{ inbox: Inbox; socket: ClientSocket }> {
    const token = await make.token(user, 'agent');
    const socket = await connect(server().url, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    const channel = `private-user.${user.id}`;
    const auth = await post(token, '/broadcasting/auth', { socket_id: socket.id, channel_name: channel });
    assert.deepEqual(await subscribe(socket, channel, auth.body.auth), { ok: true });
    return { inbox, socket };
  }

  /**
   * Anything the server emitted to this socket before now has arrived: the server answers this
   * request after it, on the same connection. (Unsubscribing from a channel it never joined changes nothing.)
   */
  const caughtUp = (socket: ClientSocket) => socket.timeout(5000).emitWithAck('unsubscribe', { channel: 'private-company.1' });

  const named = (inbox: Inbox, name: string) => inbox.received.filter((r) => r.name === name);
  const dataOf = <T>(received: Received) => received.payload.data as T;

  describe('conversation.assigned {conversation_id, by}', () => {
    it('reaches every device of the agent who takes a conversation over, once per change of hands; a colleague taking it tells the colleague', async () => {
      const t = await agentTenant();
      const colleague = await make.user(t.company, 'agent');
      const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Hello?']] });
      const [phone, colleagues] = [await device(t.agent), await device(colleague)];
      const path = `/conversations/${conversation.publicId}`;

      assert.equal((await post(t.token, `${path}/takeover`)).status, 200);
      const assigned = await phone.inbox.next((r) => r.name === 'conversation.assigned');
      assert.equal(assigned.payload.channel, `private-user.${t.agent.id}`);
      assert.deepEqual(assigned.payload.data, { conversation_id: conversation.publicId, by: t.agent.id });
      assert.ok(assigned.payload.seq > 0, 'the seq of the conversation write that assigned it');

      // Already theirs: neither a second takeover nor a reply hands it over again.
      assert.equal((await post(t.token, `${path}/takeover`)).status, 200);
      assert.equal((await post(t.token, `${path}/reply`, { body: 'On it.' })).status, 200);
      // The colleague answers: the conversation changes hands to them, by them.
      assert.equal((await post(await make.token(colleague, 'agent'), `${path}/reply`, { body: 'Let me help.' })).status, 200);
      const theirs = await colleagues.inbox.next((r) => r.name === 'conversation.assigned');
      assert.deepEqual(theirs.payload.data, { conversation_id: conversation.publicId, by: colleague.id });

      await caughtUp(phone.socket);
      assert.deepEqual(named(phone.inbox, 'conversation.assigned').map((r) => r.payload.data), [{ conversation_id: conversation.publicId, by: t.agent.id }]);
      await caughtUp(colleagues.socket);
      assert.equal(named(colleagues.inbox, 'conversation.assigned').length, 1);
    });

    it('an invite assigns the new conversation to the inviter, by the inviter', async () => {
      const t = await agentTenant();
      await t.bot.update({ branding: { ...t.bot.branding, live_visitors: true } });
      const visitor = visitorKey();
      const beat = await request('POST', `/widget/${t.bot.publicKey}/heartbeat`, { body: { visitor_id: visitor, url: 'https://shop.example/' }, headers: { 'X-Forwarded-For': freshIp() } });
      assert.equal(beat.status, 200, JSON.stringify(beat.body));
      const phone = await device(t.agent);
      const invited = await request('POST', `/api/agent/visitors/${visitor}/invite`, { token: t.token, body: { message: 'Can I help?' } });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      const assigned = await phone.inbox.next((r) => r.name === 'conversation.assigned');
      assert.deepEqual(assigned.payload.data, { conversation_id: invited.body.conversation_id, by: t.agent.id });
    });
  });

  describe('read {conversation_id}', () => {
    it('opening a thread with unread messages tells the reader\'s other devices, and only the reader\'s', async () => {
      const t = await agentTenant();
      const colleague = await make.user(t.company, 'agent');
      const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Hi'], ['visitor', 'Anyone?']] });
      await conversation.update({ unreadCount: 2 });
      const [phone, colleagues] = [await device(t.agent), await device(colleague)];

      const opened = await get(`/api/agent/inbox?conversation=${conversation.publicId}`, t.token);
      assert.equal(opened.status, 200);
      const read = await phone.inbox.next((r) => r.name === 'read');
      assert.equal(read.payload.channel, `private-user.${t.agent.id}`);
      assert.deepEqual(read.payload.data, { conversation_id: conversation.publicId });
      assert.equal((await Conversation.findByPk(conversation.id))!.unreadCount, 0);

      // Nothing left unread: opening it again writes nothing and sends nothing.
      assert.equal((await get(`/api/agent/inbox?conversation=${conversation.publicId}`, t.token)).status, 200);
      await caughtUp(phone.socket);
      assert.equal(named(phone.inbox, 'read').length, 1);
      await caughtUp(colleagues.socket);
      assert.equal(named(colleagues.inbox, 'read').length, 0, 'read is the reader\'s own news');
    });
  });

  describe('notification (the push payload, for open tabs)', () => {
    it('a handoff request reaches each handler\'s open tab with what a push to them carries; a viewer\'s tab hears nothing', async () => {
      const t = await agentTenant();
      const viewer = await make.user(t.company, 'viewer');
      const visitor = visitorKey();
      const conversation = await make.conversation(t.bot, { visitorKey: visitor, messages: [['visitor', 'I need a person']] });
      const [tab, viewers] = [await device(t.agent), await device(viewer)];

      const handoff = await request('POST', `/widget/${t.bot.publicKey}/handoff`, {
        body: { visitor_id: visitor, conversation_id: conversation.publicId },
        headers: { 'X-Forwarded-For': freshIp() },
      });
      assert.equal(handoff.status, 200, JSON.stringify(handoff.body));
      const received = await tab.inbox.next((r) => r.name === 'notification');
      assert.equal(received.payload.channel, `private-user.${t.agent.id}`);
      const data = dataOf<Record<string, unknown>>(received);
      assert.deepEqual(Object.keys(data).sort(), ['body', 'conversation_id', 'event', 'sound', 'sound_enabled', 'sound_pack', 'tag', 'title', 'url', 'vibrate', 'volume']);
      assert.deepEqual(
        { ...data, title: undefined },
        {
          event: 'handoff_requested',
          title: undefined,
          body: `${visitorDisplayName({ name: null, email: null, key: visitor })} asked to talk to a person.`,
          url: `${APP_URL}/inbox/conversations/${conversation.publicId}`,
          conversation_id: conversation.publicId,
          tag: `parley-${conversation.publicId}`,
          sound: null,
          sound_pack: 'default',
          sound_enabled: true,
          vibrate: true,
          volume: 80,
        },
      );
      assert.match(String(data.title), /is waiting for a person$/);
      const seqNow = Number((await Conversation.findByPk(conversation.id))!.seq);
      assert.equal(received.payload.seq, seqNow, 'the conversation\'s seq, not a new one');

      await caughtUp(viewers.socket);
      assert.equal(named(viewers.inbox, 'notification').length, 0);
    });

    it('follows the agent\'s preferences like a push would: with push off, the tab hears nothing', async () => {
      const t = await agentTenant();
      const colleague = await make.user(t.company, 'agent');
      const off = await request('PATCH', '/api/agent/notifications', { token: t.token, body: { push_enabled: false } });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      await t.bot.update({ branding: { ...t.bot.branding, live_visitors: true } });
      const [tab, colleagues] = [await device(t.agent), await device(colleague)];

      const visitor = visitorKey();
      const beat = await request('POST', `/widget/${t.bot.publicKey}/heartbeat`, { body: { visitor_id: visitor, url: 'https://shop.example/shoes', title: 'Shoes' }, headers: { 'X-Forwarded-For': freshIp() } });
      assert.equal(beat.status, 200, JSON.stringify(beat.body));
      const arrival = await colleagues.inbox.next((r) => r.name === 'notification');
      assert.deepEqual([dataOf<{ event: string }>(arrival).event, arrival.payload.seq], ['visitor_arrived', 0]);
      await caughtUp(tab.socket);
      assert.equal(named(tab.inbox, 'notification').length, 0);
    });
  });
});
