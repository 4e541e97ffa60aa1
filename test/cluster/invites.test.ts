import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import { cliOk } from '../support/processes';
import { request } from '../support/http';
import { postStream } from '../support/sse';

const INVITES = 20;

describe('invites across real web processes', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let chatbotKey: string;
  let token: string;

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start('a'), deployment.start('b')]);
    await deployment.settled();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Invite Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    const { user } = (await cliOk(['user', 'create', '--company', String(company.id), '--email', 'ivy@cluster.test', '--password', 'password-123', '--name', 'Ivy', '--role', 'agent'], deployment.env())) as { user: { id: number } };
    token = ((await cliOk(['token', 'create', '--user', String(user.id), '--ability', 'agent'], deployment.env())) as { token: string }).token;
    chatbotKey = chatbot.public_key;
  });
  after(() => deployment?.destroy());

  const openConversations = (visitor: string) =>
    deployment.query<{ public_id: string }>("SELECT public_id FROM conversations WHERE visitor_key = $1 AND status <> 'closed'", [visitor]);

  async function onTheSite(visitor: string): Promise<void> {
    const beat = await request('POST', `/widget/${chatbotKey}/heartbeat`, { body: { visitor_id: visitor, url: 'https://shop.example/' }, baseUrl: deployment.live()[0]!.url });
    assert.equal(beat.status, 200, JSON.stringify(beat.body));
  }

  /** Half the invites through each node, all at once. */
  const invites = (visitor: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        request('POST', `/api/agent/visitors/${visitor}/invite`, { token, body: { message: `Invite ${i}` }, baseUrl: deployment.live()[i % 2]!.url }),
      ),
    );

  it(`${INVITES} concurrent invites for one visitor through two nodes open exactly one conversation`, async () => {
    const visitor = 'visitor-invited';
    await onTheSite(visitor);
    const replies = await invites(visitor, INVITES);
    assert.ok(replies.every((r) => r.status === 200 || r.status === 201), JSON.stringify(replies.map((r) => [r.status, r.body])));
    const open = await openConversations(visitor);
    assert.equal(open.length, 1);
    assert.deepEqual(new Set(replies.map((r) => r.body.conversation_id)), new Set([open[0]!.public_id]));
    assert.equal(replies.filter((r) => r.body.created === true).length, 1, 'one invite created it; the others joined it');
    const lines = await deployment.query('SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = $1', [open[0]!.public_id]);
    assert.equal(lines.length, INVITES);
  });

  it('invites racing the visitor\'s own first message still leave one open conversation', async () => {
    const visitor = 'visitor-racing';
    await onTheSite(visitor);
    const [first, ...rest] = await Promise.all([
      postStream(`/widget/${chatbotKey}/stream`, { visitor_id: visitor, message: 'Hello, anyone?' }, { 'X-Forwarded-For': '10.7.0.1' }, deployment.live()[1]!.url),
      ...Array.from({ length: 4 }, (_, i) =>
        request('POST', `/api/agent/visitors/${visitor}/invite`, { token, body: { message: `Racing ${i}` }, baseUrl: deployment.live()[i % 2]!.url }),
      ),
    ]);
    assert.equal(first.events[0]?.event, 'meta', JSON.stringify(first.events));
    assert.ok(rest.every((r) => r.status === 200 || r.status === 201), JSON.stringify(rest.map((r) => [r.status, r.body])));
    const open = await openConversations(visitor);
    assert.equal(open.length, 1);
    assert.equal(first.events[0]!.data.conversation_id, open[0]!.public_id);
  });
});
