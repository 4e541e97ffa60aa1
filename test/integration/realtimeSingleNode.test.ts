import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { joinChannel } from '../support/agent';
import { Deployment } from '../support/cluster/deployment';
import { request } from '../support/http';
import { cliOk, ROOT, Running } from '../support/processes';
import { connect, Inbox, subscribe } from '../support/sockets';

const CONTROLLED_NODE = resolve(ROOT, 'dist/test/support/cluster/nodeMain.js');

// Its own process: models are bound to one Sequelize per process, so a second in-process node would unbind the suite's.
describe('realtime in single-node mode (no REDIS_URL: Socket.IO in-memory adapter)', () => {
  let node: Running | undefined;
  let deployment: Deployment | undefined;
  after(async () => {
    if (node?.running) node.child.kill('SIGKILL');
    await deployment?.destroy();
  });

  it('authorizes, subscribes, delivers and tracks watchers within the one process, and exits 0 on SIGTERM with a socket open', async function () {
    this.timeout(30_000);
    // Its own database too: a single node fences all 1024 shards, which would unseat the suite's cluster node.
    deployment = await Deployment.create({ singleNode: true });
    node = new Running(CONTROLLED_NODE, [], { env: deployment.env() });
    const started = await node.waitForLog((entry) => entry.msg === 'listening', 20_000);
    assert.equal(started.mode, 'single-node');
    const url = `http://127.0.0.1:${String(started.port)}`;
    const control = `http://127.0.0.1:${String((await node.waitForLog((entry) => entry.msg === 'control listening', 5000)).port)}`;
    const created = await cliOk(['workspace', 'create', '--name', 'Solo', '--owner-email', 'solo@example.test', '--owner-password', 'password-123'], deployment.env());
    const company = created.company as { id: number };
    const token = (await cliOk(['token', 'create', '--user', 'solo@example.test', '--ability', 'agent'], deployment.env())).token as string;
    const channel = `private-company.${company.id}`;

    const socket = await connect(url, { token });
    const inbox = new Inbox(socket);
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel }, baseUrl: url });
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });
    const envelope = { channel, event: 'conversation.updated', data: { status: 'closed' }, seq: 3 };
    assert.equal((await fetch(`${control}/emit`, { method: 'POST', body: JSON.stringify(envelope) })).status, 204);
    assert.deepEqual((await inbox.next((r) => r.name === 'conversation.updated')).payload, envelope);

    // Watchers live in this process's memory: the subscribe is announced and the active conversation lists the agent.
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { id: number } };
    const [{ public_id: conversationId }] = (await deployment.query<{ public_id: string }>(
      "INSERT INTO conversations (company_id, chatbot_id, visitor_key, status) VALUES ($1, $2, 'visitor-solo', 'bot') RETURNING public_id",
      [company.id, chatbot.id],
    )) as [{ public_id: string }];
    const thread = `private-conversation.${conversationId}`;
    await joinChannel(socket, token, thread, url);
    const announced = await inbox.next((r) => r.name === 'conversation.watchers' && r.payload.channel === thread);
    const active = (await request('GET', `/api/agent/conversations/${conversationId}`, { token, baseUrl: url })).body.active;
    assert.equal(active.watchers.length, 1);
    assert.deepEqual([announced.payload.data, active.watching], [{ conversation_id: conversationId, watchers: active.watchers }, true]);

    const disconnected = new Promise((resolveReason) => socket.once('disconnect', resolveReason));
    node.child.kill('SIGTERM');
    assert.deepEqual(await node.exitWithin(15_000), { code: 0, signal: null }, node.stderr);
    assert.equal(await disconnected, 'transport close');
  });
});
