import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { server } from '../support/hooks';
import { request } from '../support/http';
import { TEST_ENV } from '../support/env';
import * as make from '../support/factories';
import { childEnv, ROOT, Running, SERVER } from '../support/processes';
import { connect, Inbox, subscribe, type ClientSocket, emitRaw } from '../support/sockets';

/** The web node plus a control port for emitting, so "an actor on node B" can be played by the test. */
const CONTROLLED_NODE = resolve(ROOT, 'dist/test/support/cluster/nodeMain.js');

const portOf = async (node: Running, msg: string) => Number((await node.waitForLog((entry) => entry.msg === msg, 20_000)).port);

describe('realtime across web processes (Redis sharded pub/sub)', () => {
  const env = childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'info' });
  let nodeB: Running;
  let nodeC: Running;
  let socket: ClientSocket | undefined;

  before(function () {
    this.timeout(30_000);
    nodeB = new Running(CONTROLLED_NODE, [], { env });
    nodeC = new Running(SERVER, [], { env });
  });

  after(async function () {
    this.timeout(30_000);
    socket?.close();
    for (const node of [nodeB, nodeC]) if (node.running) node.child.kill('SIGTERM');
    for (const node of [nodeB, nodeC]) if (!(await node.exitWithin(15_000))) node.child.kill('SIGKILL');
  });

  it('a socket on node C receives events emitted on node A (in-process) and on node B', async function () {
    this.timeout(30_000);
    const [webB, controlB, webC] = await Promise.all([portOf(nodeB, 'listening'), portOf(nodeB, 'control listening'), portOf(nodeC, 'listening')]);
    const { company, owner } = await make.workspace();
    const token = await make.token(owner, 'agent');
    const channel = `private-company.${company.id}`;

    socket = await connect(`http://127.0.0.1:${webC}`, { token });
    const inbox = new Inbox(socket);
    const signed = await request('POST', '/api/agent/broadcasting/auth', {
      token,
      body: { socket_id: socket.id, channel_name: channel },
      baseUrl: `http://127.0.0.1:${webB}`,
    });
    assert.equal(signed.status, 200);
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });

    emitRaw(server().realtime, channel, 'visitor.online', { from: 'A' }, 1);
    const fromB = { channel, event: 'visitor.offline', data: { from: 'B' }, seq: 2 };
    const emitted = await fetch(`http://127.0.0.1:${controlB}/emit`, { method: 'POST', body: JSON.stringify(fromB) });
    assert.equal(emitted.status, 204);

    await inbox.next((r) => r.name === 'visitor.offline');
    await inbox.next((r) => r.name === 'visitor.online');
    assert.deepEqual(
      inbox.received.map((r) => r.payload).sort((x, y) => x.seq - y.seq),
      [{ channel, event: 'visitor.online', data: { from: 'A' }, seq: 1 }, fromB],
    );
  });

  it('a logout through node B closes the signed-out sockets on node C at once', async function () {
    this.timeout(30_000);
    const [webB, webC] = await Promise.all([portOf(nodeB, 'listening'), portOf(nodeC, 'listening')]);
    const { owner } = await make.workspace();
    const token = await make.token(owner, 'agent');
    const onC = await connect(`http://127.0.0.1:${webC}`, { token });
    try {
      const closed = new Promise<string>((resolveReason) => onC.once('disconnect', resolveReason));
      const logout = await request('POST', '/api/agent/logout', { token, baseUrl: `http://127.0.0.1:${webB}` });
      assert.equal(logout.status, 200);
      assert.equal(await closed, 'io server disconnect');
    } finally {
      onC.close();
    }
  });

  it('SIGTERM with a socket connected: the node drops it (the client may reconnect elsewhere) and exits 0 without waiting for the drain timeout', async function () {
    this.timeout(30_000);
    assert.ok(socket?.connected, 'the socket of the previous test is still connected to node C');
    const disconnected = new Promise<string>((resolveReason) => socket!.once('disconnect', resolveReason));
    const started = Date.now();
    nodeC.child.kill('SIGTERM');
    assert.deepEqual(await nodeC.exitWithin(15_000), { code: 0, signal: null }, nodeC.stderr);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    // A transport close (not 'io server disconnect') is what makes Socket.IO clients reconnect on their own, to another node.
    assert.equal(await disconnected, 'transport close');
  });
});
