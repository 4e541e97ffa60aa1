import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../../src/db/freePort';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { fakeLlm, server } from '../support/hooks';
import { DEPLOY_NGINX, nginxBinary, startNginx, type NginxSite } from '../support/nginx';
import { cliOk, ROOT, startWorker, stopProcess, type Running } from '../support/processes';
import { connect, Inbox, subscribe, type ClientSocket } from '../support/sockets';
import { parseSse } from '../support/sse';

// Five deltas of three words, the fake model pausing between two.
const REPLY = 'Parcels leave our warehouse within a day and usually arrive within three to five days.';
const DELTA_GAP_MS = 250;

const addressOf = (node: ClusterNode) => new URL(node.url).host;

describe('docs/deploy.md', () => {
  it('shows every file under deploy/nginx exactly as it is', () => {
    const docs = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
    for (const file of ['sites-available/parley.conf', 'parley/upstreams.conf', 'parley/web-nodes.conf', 'parley/proxy.conf']) {
      const text = readFileSync(join(DEPLOY_NGINX, file), 'utf8');
      assert.ok(docs.includes(`\`\`\`nginx\n${text}\`\`\``), `docs/deploy.md does not show deploy/nginx/${file} as it is`);
    }
  });
});

describe('behind nginx as docs/deploy.md configures it: two web nodes and a worker', function () {
  this.timeout(60_000);
  let deployment: Deployment | undefined;
  let worker: Running | undefined;
  /** Both nodes behind it, as in production. */
  let site: NginxSite | undefined;
  /** One node behind each, so a test chooses where a client lands. */
  const pinned = new Map<ClusterNode, NginxSite>();
  let base: string;
  let companyId: number;
  let agentToken: string;

  before(async () => {
    nginxBinary(); // before anything slow: a missing nginx fails with the one line that installs it
    deployment = await Deployment.create();
    const env = { ...fakeLlm().envFor(), PROVIDER_TIMEOUT_MS: '5000' };
    const [nodes, started] = await Promise.all([Promise.all([deployment.start('a', env), deployment.start('b', env)]), startWorker(deployment.env())]);
    worker = started;
    await deployment.settled();
    site = await startNginx(nodes.map(addressOf));
    for (const node of nodes) pinned.set(node, await startNginx([addressOf(node)]));

    const { company } = (await cliOk(['workspace', 'create', '--name', 'Proxied Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    companyId = company.id;
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(companyId), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    // The nodes share TEST_ENV's APP_KEY with the test server, so a key sealed here opens there.
    await deployment.query('INSERT INTO provider_keys (company_id, provider, key_encrypted, last_four) VALUES ($1, $2, $3, $4)', [companyId, 'openai', server().ctx.secrets.seal('sk-proxied-0001'), '0001']);
    base = `/widget/${chatbot.public_key}`;
    const { user } = (await cliOk(['user', 'create', '--company', String(companyId), '--email', 'ada@proxied.test', '--password', 'password-123', '--name', 'Ada', '--role', 'agent'], deployment.env())) as { user: { id: number } };
    ({ token: agentToken } = (await cliOk(['token', 'create', '--user', String(user.id), '--ability', 'agent'], deployment.env())) as { token: string });
  });
  after(async () => {
    await Promise.all([site, ...pinned.values()].map((running) => running?.stop()));
    await stopProcess(worker);
    await deployment?.destroy();
  });
  beforeEach(() => fakeLlm().reset());

  const ask = (through: NginxSite, visitor: string, message: string) => through.request('POST', `${base}/stream`, { body: { visitor_id: visitor, message } });

  it('streams a widget reply through nginx as it is written, not buffered to the end', async () => {
    fakeLlm().script({ reply: REPLY, delayMs: DELTA_GAP_MS });
    const reply = await ask(site!, 'visitor-stream', 'When does my parcel arrive?');
    assert.equal(reply.status, 200, reply.text);
    assert.match(String(reply.headers['content-type']), /^text\/event-stream/);
    const { events } = parseSse(reply.text);
    assert.equal(events.at(-1)?.event, 'done', reply.text);
    assert.equal(events.filter((e) => e.event === 'delta').map((e) => e.data.delta).join(''), REPLY);

    const firstDelta = reply.chunks.find((chunk) => chunk.text.includes('event: delta'))!;
    const done = reply.chunks.find((chunk) => chunk.text.includes('event: done'))!;
    assert.ok(done.at - firstDelta.at >= DELTA_GAP_MS, `the first delta arrived at ${firstDelta.at} ms, the end at ${done.at} ms: buffered`);
  });

  it('carries an agent socket over WebSocket, and a reply sent through the node hosting the conversation reaches it on the other node', async () => {
    fakeLlm().script({ reply: 'Hello!' });
    const opened = parseSse((await ask(site!, 'visitor-agent', 'Hi')).text);
    const conversationId = opened.events[0]!.data.conversation_id as string;
    const owner = await deployment!.ownerOf('conversation', conversationId);
    const [other] = [...pinned.keys()].filter((node) => node !== owner);
    const toOwner = pinned.get(owner)!;
    const toOther = pinned.get(other!)!;
    const auth = { Authorization: `Bearer ${agentToken}` };

    let socket: ClientSocket | undefined;
    try {
      socket = await connect(toOther.url, { token: agentToken }, { ca: toOther.ca });
      assert.equal(socket.io.engine.transport.name, 'websocket');
      const channel = `private-company.${companyId}`;
      const signed = await toOwner.request('POST', '/api/agent/broadcasting/auth', { headers: auth, body: { socket_id: socket.id, channel_name: channel } });
      assert.equal(signed.status, 200, signed.text);
      assert.deepEqual(await subscribe(socket, channel, (JSON.parse(signed.text) as { auth: string }).auth), { ok: true });
      const inbox = new Inbox(socket);

      const sent = await toOwner.request('POST', `/api/agent/conversations/${conversationId}/reply`, { headers: auth, body: { body: 'Ada here, on it.', client_id: 'proxied-1' } });
      assert.equal(sent.status, 200, sent.text);
      const created = await inbox.next((r) => r.payload.event === 'message.created' && (r.payload.data as { role: string }).role === 'agent');
      assert.equal((created.payload.data as { id: number }).id, (JSON.parse(sent.text) as { message: { id: number } }).message.id);
    } finally {
      socket?.close();
    }
  });

  it('per-IP limits count the address nginx saw: not nginx itself, not a forged X-Forwarded-For', async () => {
    const config = (from: string, headers: Record<string, string> = {}) => site!.request('GET', `${base}/config`, { localAddress: from, headers });
    const first = await config('127.0.0.2');
    assert.equal(first.status, 200, first.text);
    const limit = Number(first.headers['x-ratelimit-limit']);
    assert.equal(first.headers['x-ratelimit-remaining'], String(limit - 1));
    const forged = await config('127.0.0.2', { 'X-Forwarded-For': '203.0.113.7' });
    assert.equal(forged.headers['x-ratelimit-remaining'], String(limit - 2), 'a claimed address does not buy a fresh budget');
    const another = await config('127.0.0.3');
    assert.equal(another.headers['x-ratelimit-remaining'], String(limit - 1), 'another client has its own budget');
  });

  it('redirects plain HTTP to HTTPS keeping the method, and passes the app’s HSTS header once', async () => {
    const redirected = await fetch(`${site!.httpUrl}/widget.js?v=1`, { method: 'POST', redirect: 'manual' });
    assert.equal(redirected.status, 308);
    assert.equal(redirected.headers.get('location'), 'https://127.0.0.1/widget.js?v=1');
    const health = await site!.request('GET', '/healthz');
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
    assert.equal(health.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    assert.match(String(health.headers['x-request-id']), /^[0-9a-f]{32}$/, 'the node logged the request under nginx’s request id');
  });

  it('keeps per-node endpoints off the site, and answers its own errors in the app’s JSON shape', async () => {
    for (const path of ['/metrics', '/readyz']) {
      const hidden = await site!.request('GET', path);
      assert.equal(hidden.status, 404);
      assert.equal(JSON.parse(hidden.text).code, 'route_not_found');
    }

    const tooLarge = await declareBody(site!, `${base}/stream`, 8 * 1024 * 1024 + 1);
    assert.equal(tooLarge.status, 413);
    assert.deepEqual(JSON.parse(tooLarge.text), { message: 'The request body is too large.', code: 'payload_too_large' });

    const nobody = await startNginx([`127.0.0.1:${await freePort()}`]);
    try {
      const down = await nobody.request('GET', '/api/v1/me');
      assert.equal(down.status, 503);
      assert.equal(down.headers['retry-after'], '5');
      assert.equal(JSON.parse(down.text).code, 'service_unavailable');
    } finally {
      await nobody.stop();
    }
  });
});

/** Sends only the headers of a POST announcing `bytes` of body: nginx judges the size from them. */
function declareBody(site: NginxSite, path: string, bytes: number): Promise<{ status: number; text: string }> {
  return new Promise((resolveReply, reject) => {
    const req = httpsRequest(`${site.url}${path}`, { method: 'POST', ca: site.ca, headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolveReply({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
