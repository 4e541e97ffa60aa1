import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { agentTenant } from '../support/agent';
import { TEST_ENV } from '../support/env';
import * as make from '../support/factories';
import { get, request } from '../support/http';
import { freshIp } from '../support/portal';
import { childEnv, Running, SERVER } from '../support/processes';
import { connect, Inbox, subscribe, type ClientSocket } from '../support/sockets';

/**
 * The agent's own channel across web processes: the agent acts through this process (node A) while
 * their other device is connected to node C, so every event reaches it through Redis.
 */
describe('private-user.<id> across web processes', function () {
  this.timeout(60_000);
  const env = childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'info' });
  let nodeC: Running;
  let socket: ClientSocket | undefined;

  before(() => {
    nodeC = new Running(SERVER, [], { env });
  });

  after(async () => {
    socket?.close();
    if (nodeC.running) nodeC.child.kill('SIGTERM');
    if (!(await nodeC.exitWithin(15_000))) nodeC.child.kill('SIGKILL');
  });

  it('notification, conversation.assigned and read reach the agent\'s device on another node', async () => {
    const webC = `http://127.0.0.1:${Number((await nodeC.waitForLog((entry) => entry.msg === 'listening', 30_000)).port)}`;
    const t = await agentTenant();
    const visitor = `visitor-${randomBytes(4).toString('hex')}`;
    const conversation = await make.conversation(t.bot, { visitorKey: visitor, messages: [['visitor', 'Is anyone there?']] });
    await conversation.update({ unreadCount: 1 });

    const phoneToken = await make.token(t.agent, 'agent');
    socket = await connect(webC, { token: phoneToken });
    const inbox = new Inbox(socket);
    const channel = `private-user.${t.agent.id}`;
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token: phoneToken, body: { socket_id: socket.id, channel_name: channel }, baseUrl: webC });
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });

    const handoff = await request('POST', `/widget/${t.bot.publicKey}/handoff`, {
      body: { visitor_id: visitor, conversation_id: conversation.publicId },
      headers: { 'X-Forwarded-For': freshIp() },
    });
    assert.equal(handoff.status, 200, JSON.stringify(handoff.body));
    const notification = await inbox.next((r) => r.name === 'notification');
    const { event, conversation_id } = notification.payload.data as { event: string; conversation_id: string };
    assert.deepEqual([notification.payload.channel, event, conversation_id], [channel, 'handoff_requested', conversation.publicId]);

    assert.equal((await request('POST', `/api/agent/conversations/${conversation.publicId}/takeover`, { token: t.token })).status, 200);
    const assigned = await inbox.next((r) => r.name === 'conversation.assigned');
    assert.deepEqual(assigned.payload.data, { conversation_id: conversation.publicId, by: t.agent.id });

    assert.equal((await get(`/api/agent/inbox?conversation=${conversation.publicId}`, t.token)).status, 200);
    const read = await inbox.next((r) => r.name === 'read');
    assert.deepEqual(read.payload.data, { conversation_id: conversation.publicId });
    assert.ok(assigned.payload.seq < read.payload.seq, 'both are writes of the conversation, in order');
  });
});
