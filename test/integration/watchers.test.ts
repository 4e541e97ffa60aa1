import { strict as assert } from 'node:assert';
import type { User } from '../../src/models';
import { agentTenant, joinChannel } from '../support/agent';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { get } from '../support/http';
import { connect, Inbox, type ClientSocket } from '../support/sockets';

type WatchersData = { conversation_id: string; watchers: Array<{ id: number; name: string }> };

const watcher = (user: User) => ({ id: user.id, name: user.name });
const byName = (list: Array<{ id: number; name: string }>) => [...list].sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);

describe('conversation watchers (who has a conversation open)', () => {
  const sockets: ClientSocket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  const open = async (token: string) => {
    const socket = await connect(server().url, { token });
    sockets.push(socket);
    return socket;
  };
  const active = async (token: string, conversationId: string) => {
    const reply = await get(`/api/agent/conversations/${conversationId}`, token);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.active as { watchers: WatchersData['watchers']; watching: boolean };
  };

  it('subscribing, unsubscribing and disconnecting change `watchers`, announced once per agent on the conversation and company channels', async function () {
    this.timeout(20_000);
    const { company, agent: a, bot, token: tokenA } = await agentTenant();
    const b = await make.user(company, 'agent');
    const tokenB = await make.token(b, 'agent');
    const conversation = await make.conversation(bot, { messages: [['visitor', 'Hello?']] });
    const conversationChannel = `private-conversation.${conversation.publicId}`;
    const companyChannel = `private-company.${company.id}`;

    // B follows the inbox: every change reaches the company channel.
    const inboxB = await open(tokenB);
    const companyEvents = new Inbox(inboxB);
    await joinChannel(inboxB, tokenB, companyChannel);
    const announced = () => companyEvents.received.filter((r) => r.name === 'conversation.watchers' && r.payload.channel === companyChannel).map((r) => (r.payload.data as WatchersData).watchers);
    const nth = (n: number) => companyEvents.next(() => announced().length >= n);

    const before = await active(tokenB, conversation.publicId);
    assert.deepEqual([before.watchers, before.watching], [[], false]);

    const tabA1 = await open(tokenA);
    await joinChannel(tabA1, tokenA, conversationChannel);
    const first = await nth(1);
    await conversation.reload();
    assert.deepEqual(first.payload, {
      channel: companyChannel,
      event: 'conversation.watchers',
      data: { conversation_id: conversation.publicId, watchers: [watcher(a)] },
      seq: Number(conversation.seq),
    });
    const seenByA = await active(tokenA, conversation.publicId);
    assert.deepEqual([seenByA.watchers, seenByA.watching], [[watcher(a)], true]);
    const seenByB = await active(tokenB, conversation.publicId);
    assert.deepEqual([seenByB.watchers, seenByB.watching], [[watcher(a)], false]);

    // A's second tab is not news; B opening the thread is, and B's own socket on the channel gets it too.
    const tabA2 = await open(tokenA);
    await joinChannel(tabA2, tokenA, conversationChannel);
    const threadB = new Inbox(inboxB);
    await joinChannel(inboxB, tokenB, conversationChannel);
    await nth(2);
    const onThread = await threadB.next((r) => r.name === 'conversation.watchers' && r.payload.channel === conversationChannel);
    assert.deepEqual(onThread.payload.data, { conversation_id: conversation.publicId, watchers: byName([watcher(a), watcher(b)]) });
    const both = await active(tokenB, conversation.publicId);
    assert.deepEqual([both.watchers, both.watching], [byName([watcher(a), watcher(b)]), true]);

    // A leaves by unsubscribing one tab and closing the other: one departure.
    assert.deepEqual(await tabA1.timeout(3000).emitWithAck('unsubscribe', { channel: conversationChannel }), { ok: true });
    tabA2.close();
    await nth(3);
    assert.deepEqual((await active(tokenA, conversation.publicId)).watching, false);

    assert.deepEqual(await inboxB.timeout(3000).emitWithAck('unsubscribe', { channel: conversationChannel }), { ok: true });
    await nth(4);
    assert.deepEqual(announced(), [[watcher(a)], byName([watcher(a), watcher(b)]), [watcher(b)], []]);
    assert.deepEqual((await active(tokenB, conversation.publicId)).watchers, []);
  });

  it('company and user channels do not make a watcher, nor does a widget socket', async function () {
    this.timeout(20_000);
    const { company, agent, bot, token } = await agentTenant();
    const conversation = await make.conversation(bot);
    const socket = await open(token);
    await joinChannel(socket, token, `private-company.${company.id}`);
    await joinChannel(socket, token, `private-user.${agent.id}`);
    const widget = await connect(server().url, { key: bot.publicKey, visitor_id: conversation.visitorKey, conversation_id: conversation.publicId });
    sockets.push(widget);
    const seen = await active(token, conversation.publicId);
    assert.deepEqual([seen.watchers, seen.watching], [[], false]);
  });
});
