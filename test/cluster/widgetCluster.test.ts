import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { fakeLlm, server } from '../support/hooks';
import { cliOk } from '../support/processes';
import { request } from '../support/http';
import { postStream } from '../support/sse';
import { connect, Inbox, subscribe } from '../support/sockets';

const REPLY = 'Every parcel is insured and tracked from our warehouse to your door.';

describe('widget conversations across real web processes', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let base: string;

  before(async () => {
    deployment = await Deployment.create();
    const env = { ...fakeLlm().envFor(), PROVIDER_TIMEOUT_MS: '5000' };
    await Promise.all([deployment.start('a', env), deployment.start('b', env)]);
    await deployment.settled();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Cluster Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    // The nodes share TEST_ENV's APP_KEY with the test server, so a key sealed here opens there.
    await deployment.query('INSERT INTO provider_keys (company_id, provider, key_encrypted, last_four) VALUES ($1, $2, $3, $4)', [company.id, 'openai', server().ctx.secrets.seal('sk-cluster-0001'), '0001']);
    base = `/widget/${chatbot.public_key}`;
  });
  after(() => deployment?.destroy());
  beforeEach(() => fakeLlm().reset());

  const send = (node: ClusterNode, body: Record<string, unknown>) => postStream(`${base}/stream`, body, { 'X-Forwarded-For': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` }, node.url);
  const otherThan = (node: ClusterNode) => deployment.live().find((n) => n !== node)!;

  async function openConversation(visitor: string): Promise<string> {
    fakeLlm().script({ reply: 'Hello!' });
    const opened = await send(deployment.live()[0]!, { visitor_id: visitor, message: 'Hi' });
    assert.equal(opened.events.at(-1)?.event, 'done', JSON.stringify(opened.events));
    return opened.events[0]!.data.conversation_id;
  }

  it('streams a reply requested on one node from the conversation actor on another', async () => {
    const conversationId = await openConversation('visitor-remote');
    const owner = await deployment.ownerOf('conversation', conversationId);
    fakeLlm().script({ reply: REPLY });
    const reply = await send(otherThan(owner), { visitor_id: 'visitor-remote', message: 'Is it insured?', conversation_id: conversationId });
    const names = reply.events.map((e) => e.event);
    assert.deepEqual([names[0], names.at(-1)], ['meta', 'done']);
    assert.equal(reply.events.filter((e) => e.event === 'delta').map((e) => e.data.delta).join(''), REPLY);
    const rows = await deployment.query<{ role: string }>('SELECT m.role FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = $1 ORDER BY m.id', [conversationId]);
    assert.deepEqual(rows.map((r) => r.role), ['visitor', 'assistant', 'visitor', 'assistant']);
  });

  it('an agent on another node sees the reply live; concurrent repeats of one client_id through both nodes store it once', async () => {
    const conversationId = await openConversation('visitor-agent');
    const owner = await deployment.ownerOf('conversation', conversationId);
    const other = otherThan(owner);
    const { company_id: companyId } = (await deployment.query<{ company_id: number }>('SELECT company_id FROM conversations WHERE public_id = $1', [conversationId]))[0]!;
    const { user } = (await cliOk(['user', 'create', '--company', String(companyId), '--email', 'sam@cluster.test', '--password', 'password-123', '--name', 'Sam', '--role', 'agent'], deployment.env())) as { user: { id: number } };
    const { token } = (await cliOk(['token', 'create', '--user', String(user.id), '--ability', 'agent'], deployment.env())) as { token: string };

    // The agent's socket is on the node that does not host the conversation.
    const socket = await connect(other.url, { token });
    try {
      const channel = `private-company.${companyId}`;
      const auth = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel }, baseUrl: other.url });
      assert.deepEqual(await subscribe(socket, channel, auth.body.auth), { ok: true });
      const inbox = new Inbox(socket);
      const path = `/api/agent/conversations/${conversationId}/reply`;
      const replies = await Promise.all(
        [owner, other, owner, other].map((node) => request('POST', path, { token, body: { body: 'Sam here, on it.', client_id: 'tap-7' }, baseUrl: node.url })),
      );
      assert.deepEqual(replies.map((r) => r.status), [200, 200, 200, 200], JSON.stringify(replies.map((r) => r.body)));
      assert.equal(new Set(replies.map((r) => r.body.message.id)).size, 1);
      assert.equal(replies.filter((r) => r.body.duplicate === true).length, 3);
      const created = await inbox.next((r) => r.payload.event === 'message.created' && (r.payload.data as { role: string }).role === 'agent');
      assert.equal((created.payload.data as { id: number }).id, replies[0]!.body.message.id);
      const rows = await deployment.query('SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = $1 AND m.role = $2', [conversationId, 'agent']);
      assert.equal(rows.length, 1);
    } finally {
      socket.close();
    }
  });

  it('a settings write on one node is seen by the next stream on the other, though nodes remember chatbots between writes', async () => {
    const env = deployment.env();
    const email = 'owner@settings-shop.test';
    await cliOk(['workspace', 'create', '--name', 'Settings Shop', '--plan', 'pro', '--portal', '--owner-email', email, '--owner-password', 'password-123'], env);
    const { company_id: companyId } = (await deployment.query<{ company_id: number }>('SELECT company_id FROM users WHERE email = $1', [email]))[0]!;
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(companyId), '--name', 'Settings'], env)) as { chatbot: { public_key: string } };
    const { token } = (await cliOk(['token', 'create', '--user', email, '--ability', 'portal'], env)) as { token: string };
    const stream = (node: ClusterNode, body: Record<string, unknown>) =>
      postStream(`/widget/${chatbot.public_key}/stream`, body, { 'X-Forwarded-For': `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` }, node.url);
    const update = (node: ClusterNode, body: Record<string, unknown>) => request('PUT', `/api/portal/chatbots/${chatbot.public_key}`, { token, body: { name: 'Settings', ...body }, baseUrl: node.url });
    const leads = async () => Number((await deployment.query<{ n: string }>('SELECT count(*) AS n FROM leads WHERE company_id = $1', [companyId]))[0]!.n);

    // The conversation lives on one node (its actor reads the chatbot's flags); the stream route on both nodes has read the chatbot.
    fakeLlm().script({ reply: 'Hello!' });
    const opened = await stream(deployment.live()[0]!, { visitor_id: 'settings-visitor', message: 'Hi, I am ann@example.com' });
    assert.equal(opened.events.at(-1)?.event, 'done', JSON.stringify(opened.events));
    const conversationId = opened.events[0]!.data.conversation_id as string;
    const owner = await deployment.ownerOf('conversation', conversationId);
    const other = otherThan(owner);
    fakeLlm().script({ reply: 'Hello again!' });
    assert.equal((await stream(other, { visitor_id: 'settings-visitor', conversation_id: conversationId, message: 'Still me' })).events.at(-1)?.event, 'done');
    assert.equal(await leads(), 0, 'auto_actions is off: no lead from the email');

    // A flag the owner's actor reads per turn, switched on through the other node.
    assert.equal((await update(other, { auto_actions: true })).status, 200);
    fakeLlm().script({ reply: 'Noted.' });
    const next = await stream(owner, { visitor_id: 'settings-visitor', conversation_id: conversationId, message: 'Write to ann@example.com please' });
    assert.equal(next.events.at(-1)?.event, 'done', JSON.stringify(next.events));
    assert.equal(await leads(), 1, 'the owner saw auto_actions switched on by the next message');

    // The chatbot switched off on one node: the next stream on the other answers 404, as for an unknown key; and back on.
    assert.equal((await update(owner, { is_active: false })).status, 200);
    const refused = await stream(other, { visitor_id: 'settings-visitor', conversation_id: conversationId, message: 'Hello?' });
    assert.equal(refused.status, 404, JSON.stringify(refused.body ?? refused.events));
    assert.equal((await update(other, { is_active: true })).status, 200);
    fakeLlm().script({ reply: 'Back.' });
    assert.equal((await stream(owner, { visitor_id: 'settings-visitor', conversation_id: conversationId, message: 'Hello?' })).events.at(-1)?.event, 'done');
  });

  it('ends the stream with an error when the owner dies mid-reply; catch-up shows what was stored; a retry answers once', async () => {
    const visitor = 'visitor-crash';
    const conversationId = await openConversation(visitor);
    const owner = await deployment.ownerOf('conversation', conversationId);
    const entry = otherThan(owner);
    fakeLlm().script({ reply: REPLY, delayMs: 400 });

    const streaming = send(entry, { visitor_id: visitor, message: 'Is it insured?', conversation_id: conversationId, client_id: 'retry-me' });
    await new Promise((resolve) => setTimeout(resolve, 900)); // meta and a delta or two are out
    await owner.kill('SIGKILL');
    const started = Date.now();
    const cut = await streaming;
    assert.ok(Date.now() - started < 15_000, 'the stream ended instead of hanging');
    assert.equal(cut.events[0]?.event, 'meta');
    assert.equal(cut.events.at(-1)?.event, 'error', JSON.stringify(cut.events.map((e) => e.event)));
    assert.equal(cut.events.at(-1)!.data.code, 'internal');

    const state = await fetch(`${entry.url}${base}/conversations/${conversationId}?visitor_id=${visitor}`).then((r) => r.json() as Promise<{ messages: Array<{ role: string; content: string }> }>);
    assert.deepEqual(state.messages.map((m) => m.role), ['visitor', 'assistant', 'visitor'], 'the stored question is there; no half answer');

    await deployment.settled(30_000);
    fakeLlm().script({ reply: REPLY });
    const retried = await send(entry, { visitor_id: visitor, message: 'Is it insured?', conversation_id: conversationId, client_id: 'retry-me' });
    assert.equal(retried.events.at(-1)?.event, 'done', JSON.stringify(retried.events));
    assert.equal(retried.events[0]!.data.visitor_message_id, cut.events[0]!.data.visitor_message_id, 'the same visitor message');
    const rows = await deployment.query<{ role: string; reply_to_id: string | null }>(
      'SELECT m.role, m.reply_to_id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = $1 ORDER BY m.id',
      [conversationId],
    );
    assert.deepEqual(rows.map((r) => r.role), ['visitor', 'assistant', 'visitor', 'assistant']);
    assert.equal(Number(rows[3]!.reply_to_id), cut.events[0]!.data.visitor_message_id);
  });
});
