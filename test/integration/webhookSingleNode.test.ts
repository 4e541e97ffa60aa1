import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { Deployment } from '../support/cluster/deployment';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliOk, ROOT, Running } from '../support/processes';
import { WebhookReceiver } from '../support/webhookReceiver';

const CONTROLLED_NODE = resolve(ROOT, 'dist/test/support/cluster/nodeMain.js');

// Its own process and database, as test/integration/realtimeSingleNode.test.ts explains.
describe('webhooks in single-node mode (no REDIS_URL: the web process delivers them)', () => {
  let node: Running | undefined;
  let deployment: Deployment | undefined;
  let receiver: WebhookReceiver | undefined;
  after(async () => {
    if (node?.running) node.child.kill('SIGKILL');
    await deployment?.destroy();
    await receiver?.close();
  });

  it('delivers a conversation event, signed, from the in-process queue', async function () {
    this.timeout(60_000);
    receiver = await WebhookReceiver.start();
    deployment = await Deployment.create({ singleNode: true });
    node = new Running(CONTROLLED_NODE, [], { env: deployment.env() });
    const started = await node.waitForLog((entry) => entry.msg === 'listening', 20_000);
    assert.equal(started.mode, 'single-node');
    const url = `http://127.0.0.1:${String(started.port)}`;
    const env = deployment.env();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Solo', '--owner-email', 'solo@example.test', '--owner-password', 'password-123'], env)) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], env)) as { chatbot: { id: number } };
    const { webhook } = (await cliOk(['webhook', 'create', '--company', String(company.id), '--url', receiver.url('solo'), '--events', 'conversation.updated'], env)) as {
      webhook: { secret: string };
    };
    receiver.trust('solo', webhook.secret);
    const token = (await cliOk(['token', 'create', '--user', 'solo@example.test', '--ability', 'agent'], env)).token as string;
    const [{ public_id: conversationId }] = (await deployment.query<{ public_id: string }>(
      "INSERT INTO conversations (company_id, chatbot_id, visitor_key, status) VALUES ($1, $2, 'visitor-solo', 'bot') RETURNING public_id",
      [company.id, chatbot.id],
    )) as [{ public_id: string }];

    const taken = await request('POST', `/api/agent/conversations/${conversationId}/takeover`, { token, baseUrl: url });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const [got] = await eventually(() => receiver!.to('solo'), (list) => list.length > 0, 20_000);
    assert.ok(got, 'delivered');
    assert.ok(got.verified);
    assert.deepEqual([got.type, got.conversationId, got.body.data.conversation.status], ['conversation.updated', conversationId, 'agent']);
  });
});
