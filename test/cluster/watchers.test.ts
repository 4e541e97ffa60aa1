import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliOk } from '../support/processes';
import { joinChannel } from '../support/agent';
import { connect, Inbox, type ClientSocket } from '../support/sockets';
import { TEST_ENV } from '../support/env';

type Watchers = Array<{ id: number; name: string }>;

// A member is dead to the others 3 heartbeats after its last one; the rest is slack for a busy machine.
const MEMBERSHIP_BOUND_MS = 3 * Number(TEST_ENV.CLUSTER_HEARTBEAT_MS) + 8_000;

describe('conversation watchers across web processes', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  const sockets: ClientSocket[] = [];

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start('watch-a'), deployment.start('watch-b')]);
    await deployment.settled();
  });
  after(async () => {
    sockets.forEach((socket) => socket.close());
    await deployment?.destroy();
  });

  const agent = async (companyId: number, name: string) => {
    const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@watchers.test`;
    const { user } = (await cliOk(['user', 'create', '--company', String(companyId), '--email', email, '--password', 'password-123', '--name', name, '--role', 'agent'], deployment.env())) as {
      user: { id: number };
    };
    const { token } = (await cliOk(['token', 'create', '--user', email, '--ability', 'agent'], deployment.env())) as { token: string };
    return { id: user.id, name, token };
  };
  const join = async (node: ClusterNode, token: string, channel: string) => {
    const socket = await connect(node.url, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    await joinChannel(socket, token, channel, node.url);
    return inbox;
  };
  const watchersSeen = async (node: ClusterNode, token: string, conversationId: string) => {
    const reply = await request('GET', `/api/agent/conversations/${conversationId}`, { token, baseUrl: node.url });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.active.watchers as Watchers;
  };

  it("a socket on another node is a watcher, and leaves with its node when that node is killed", async () => {
    const [nodeA, nodeB] = deployment.live() as [ClusterNode, ClusterNode];
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Busy Team', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { id: number } };
    const [{ public_id: conversationId }] = (await deployment.query<{ public_id: string }>(
      "INSERT INTO conversations (company_id, chatbot_id, visitor_key, status) VALUES ($1, $2, 'visitor-watched', 'bot') RETURNING public_id",
      [company.id, chatbot.id],
    )) as [{ public_id: string }];
    const [ana, ben] = [await agent(company.id, 'Ana'), await agent(company.id, 'Ben')];

    const inboxOfBen = await join(nodeB, ben.token, `private-company.${company.id}`);
    await join(nodeA, ana.token, `private-conversation.${conversationId}`);
    const announced = () => inboxOfBen.received.filter((r) => r.name === 'conversation.watchers').map((r) => r.payload.data as { conversation_id: string; watchers: Watchers });

    await inboxOfBen.next((r) => r.name === 'conversation.watchers');
    assert.deepEqual(announced(), [{ conversation_id: conversationId, watchers: [{ id: ana.id, name: 'Ana' }] }]);
    assert.deepEqual(await watchersSeen(nodeB, ben.token, conversationId), [{ id: ana.id, name: 'Ana' }]);

    const killedAt = Date.now();
    await nodeA.kill('SIGKILL');
    const gone = await eventually(announced, (events) => events.length === 2, MEMBERSHIP_BOUND_MS);
    assert.deepEqual(gone, [announced()[0], { conversation_id: conversationId, watchers: [] }]);
    assert.ok(Date.now() - killedAt < MEMBERSHIP_BOUND_MS, `announced after ${Date.now() - killedAt} ms`);
    assert.deepEqual(await watchersSeen(nodeB, ben.token, conversationId), []);
  });
});
