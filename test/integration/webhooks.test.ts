import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { findWebhook, refusedDestination, sendTestEvent } from '../../src/domain/webhooks/manage';
import { webhookRuntime } from '../../src/domain/webhooks/send';
import { signatureHeader, verifySignature } from '../../src/domain/webhooks/signature';
import { Webhook } from '../../src/models';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { get, request } from '../support/http';
import { cli, jsonLine } from '../support/processes';
import { WebhookReceiver } from '../support/webhookReceiver';
import { registerHook, webhookTenant } from '../support/webhooks';

describe('webhooks: management, test delivery, destinations, catch-up', function () {
  this.timeout(30_000);
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await WebhookReceiver.start();
  });
  after(() => receiver?.close());
  beforeEach(() => receiver.answer(200));

  it('creates a webhook showing its secret once, stores it sealed, lists and deletes it', async () => {
    const t = await webhookTenant();
    const created = await request('POST', '/api/portal/webhooks', {
      token: t.portal,
      body: { url: receiver.url('crud'), events: ['message.created', 'lead.created', 'message.created'], description: 'CRM sync' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { secret, ...shown } = created.body.webhook;
    assert.match(secret, /^whsec_[\w-]{32}$/);
    assert.deepEqual({ ...shown, id: 0, created_at: '' }, { id: 0, url: receiver.url('crud'), events: ['message.created', 'lead.created'], description: 'CRM sync', active: true, created_at: '' });

    const row = await Webhook.findByPk(shown.id);
    assert.ok(!row!.secretEncrypted.includes(secret.slice(6)));
    assert.equal(server().ctx.secrets.open(row!.secretEncrypted), secret);

    const listed = await get('/api/portal/webhooks', t.portal);
    assert.deepEqual(listed.body, { data: [shown] });
    assert.ok(!JSON.stringify(listed.body).includes(secret));

    const neighbour = await webhookTenant();
    assert.deepEqual((await get('/api/portal/webhooks', neighbour.portal)).body, { data: [] });
    assert.equal((await request('DELETE', `/api/portal/webhooks/${shown.id}`, { token: neighbour.portal })).status, 404);
    assert.equal((await get(`/api/portal/webhooks/${shown.id}/deliveries`, neighbour.portal)).status, 404);
    assert.equal((await request('POST', `/api/portal/webhooks/${shown.id}/test`, { token: neighbour.portal })).status, 404);

    const deleted = await request('DELETE', `/api/portal/webhooks/${shown.id}`, { token: t.portal });
    assert.deepEqual([deleted.status, deleted.body], [200, { message: 'The webhook was deleted.' }]);
    assert.equal((await request('DELETE', `/api/portal/webhooks/${shown.id}`, { token: t.portal })).status, 404);
    assert.equal((await request('DELETE', '/api/portal/webhooks/abc', { token: t.portal })).status, 404);
  });

  it('refuses bad input with 422 per field, and roles without manage-workspace with 403', async () => {
    const t = await webhookTenant();
    for (const [body, field] of [
      [{ events: ['message.created'] }, 'url'],
      [{ url: 'ftp://example.com/x', events: ['message.created'] }, 'url'],
      [{ url: 'not a url', events: ['message.created'] }, 'url'],
      [{ url: `https://example.com/${'x'.repeat(2000)}`, events: ['message.created'] }, 'url'],
      [{ url: 'https://example.com/x' }, 'events'],
      [{ url: 'https://example.com/x', events: [] }, 'events'],
      [{ url: 'https://example.com/x', events: ['message.deleted'] }, 'events.0'],
      [{ url: 'https://example.com/x', events: 'message.created' }, 'events'],
      [{ url: 'https://example.com/x', events: ['message.created'], description: 'd'.repeat(256) }, 'description'],
      [{ url: 'https://example.com/x', events: ['message.created'], secret: 'mine' }, 'secret'],
    ] as const) {
      const reply = await request('POST', '/api/portal/webhooks', { token: t.portal, body });
      assert.equal(reply.status, 422, JSON.stringify(body));
      assert.ok(reply.body.errors[field], `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
    }
    assert.equal(await Webhook.count({ where: { companyId: t.company.id } }), 0);
    const delivered = await get('/api/portal/webhooks/1/deliveries?limit=0', t.portal);
    assert.equal(delivered.status, 404);

    const agent = await make.token(await make.user(t.company, 'agent'), 'portal');
    assert.equal((await get('/api/portal/webhooks', agent)).status, 403);
    assert.equal((await request('POST', '/api/portal/webhooks', { token: agent, body: { url: 'https://example.com/x', events: ['message.created'] } })).status, 403);
    assert.equal((await get('/api/portal/webhooks', t.api)).status, 403);
    assert.equal((await get('/api/portal/webhooks')).status, 401);
  });

  it('sends a signed test event now, logs it, and never retries it', async () => {
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'ping', ['message.created']);
    const sent = await request('POST', `/api/portal/webhooks/${hook.id}/test`, { token: t.portal });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual([sent.body.delivery.status, sent.body.delivery.attempts, sent.body.delivery.response_status, sent.body.delivery.event], ['delivered', 1, 200, 'webhook.test']);
    const [got] = receiver.to('ping');
    assert.ok(got!.verified, 'the test event is signed like any other');
    assert.deepEqual([got!.id, got!.type, got!.body.conversation_id, got!.body.workspace_id], [sent.body.delivery.event_id, 'webhook.test', null, t.company.id]);

    receiver.answer(503);
    const failed = await request('POST', `/api/portal/webhooks/${hook.id}/test`, { token: t.portal });
    assert.deepEqual([failed.body.delivery.status, failed.body.delivery.response_status, failed.body.delivery.error, failed.body.delivery.next_attempt_at], ['failed', 503, 'answered 503', null]);
    assert.equal((await Webhook.findByPk(hook.id))!.failingSince, null, 'a test does not count toward deactivation');

    const log = await get(`/api/portal/webhooks/${hook.id}/deliveries?limit=1`, t.portal);
    assert.deepEqual(log.body.data, [failed.body.delivery]);
    assert.equal((await get(`/api/portal/webhooks/${hook.id}/deliveries?limit=101`, t.portal)).status, 422);
  });

  it('follows no redirect and keeps at most 1 KB of an answer', async () => {
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'moved', ['message.created']);
    receiver.answer({ status: 301, headers: { Location: receiver.url('elsewhere') } });
    const moved = await request('POST', `/api/portal/webhooks/${hook.id}/test`, { token: t.portal });
    assert.deepEqual([moved.body.delivery.status, moved.body.delivery.response_status, moved.body.delivery.error], ['failed', 301, `redirect to ${receiver.url('elsewhere')} not followed`]);
    assert.equal(receiver.to('elsewhere').length, 0);

    receiver.answer({ status: 200, body: 'é'.repeat(5000) });
    await request('POST', `/api/portal/webhooks/${hook.id}/test`, { token: t.portal });
    const [stored] = await server().ctx.db.sequelize.query<{ response_body: string }>(
      `SELECT response_body FROM webhook_deliveries WHERE webhook_id = ${hook.id} ORDER BY id DESC LIMIT 1`,
      { type: 'SELECT' as never },
    );
    assert.equal(stored!.response_body, 'é'.repeat(512), 'the first 1024 bytes, whole characters only');
  });

  it('refuses private, loopback and metadata destinations under the address rules (WEBHOOK_ALLOW_PRIVATE off)', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://10.0.0.7/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x']) {
      assert.match(refusedDestination(url, false) ?? '', /^The url may not point at /, url);
      assert.equal(refusedDestination(url, true), undefined);
    }
    assert.equal(refusedDestination('https://example.com/hook', false), undefined);

    // A name that resolves to loopback is refused when it is resolved, at delivery, and nothing is sent.
    const t = await webhookTenant();
    const hook = await registerHook(t, receiver, 'ssrf', ['message.created']);
    const port = new URL(receiver.baseUrl).port;
    await Webhook.update({ url: `http://localhost:${port}/hooks/ssrf` }, { where: { id: hook.id } });
    const { delivery } = await sendTestEvent(await findWebhook(t.company.id, hook.id), server().ctx.secrets, webhookRuntime(false));
    assert.equal(delivery.status, 'failed');
    assert.match(delivery.error ?? '', /refused: .* is a loopback address/);
    // And an IP literal is refused before any connection.
    await Webhook.update({ url: `http://127.0.0.1:${port}/hooks/ssrf` }, { where: { id: hook.id } });
    const literal = await sendTestEvent(await findWebhook(t.company.id, hook.id), server().ctx.secrets, webhookRuntime(false));
    assert.equal(literal.delivery.error, 'refused: 127.0.0.1 is a loopback address');
    assert.equal(receiver.to('ssrf').length, 0);
  });

  it('signs as documented: t and v1 = HMAC-SHA256 of "<t>.<body>", verified in constant time with a tolerance', () => {
    const body = '{"id":"evt_1"}';
    const header = signatureHeader('whsec_secret', 1_700_000_000, body);
    const expected = createHmac('sha256', 'whsec_secret').update(`1700000000.${body}`).digest('hex');
    assert.equal(header, `t=1700000000,v1=${expected}`);
    assert.ok(verifySignature('whsec_secret', header, body, { now: 1_700_000_100 }));
    assert.ok(!verifySignature('whsec_secret', header, body, { now: 1_700_000_400 }), 'too old');
    assert.ok(!verifySignature('whsec_other', header, body, { now: 1_700_000_000 }));
    assert.ok(!verifySignature('whsec_secret', header, `${body} `, { now: 1_700_000_000 }));
    assert.ok(!verifySignature('whsec_secret', 't=1700000000,v1=abc', body, { now: 1_700_000_000 }));
    assert.ok(!verifySignature('whsec_secret', undefined, body));
  });

  it('catch-up: pages through a conversation\'s events with or without a webhook, and keeps workspaces apart', async () => {
    const t = await webhookTenant();
    const conversation = await make.conversation(t.bot);
    for (const type of ['takeover', 'release', 'takeover', 'resolve'] as const) await server().actors.ask('conversation', conversation.publicId, { type, userId: t.owner.id });
    const all = await get(`/api/v1/conversations/${conversation.publicId}/events`, t.api);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.data.map((e: { data: { conversation: { status: string } } }) => e.data.conversation.status), ['agent', 'bot', 'agent', 'closed']);
    assert.equal(all.body.next_after_seq, null);

    const first = await get(`/api/v1/conversations/${conversation.publicId}/events?limit=3`, t.api);
    assert.deepEqual(first.body.data, all.body.data.slice(0, 3));
    assert.equal(first.body.next_after_seq, all.body.data[2].seq);
    const rest = await get(`/api/v1/conversations/${conversation.publicId}/events?after_seq=${first.body.next_after_seq}&limit=3`, t.api);
    assert.deepEqual(rest.body, { data: all.body.data.slice(3), next_after_seq: null });

    for (const query of ['after_seq=-1', 'after_seq=x', 'limit=0', 'limit=501']) {
      const bad = await get(`/api/v1/conversations/${conversation.publicId}/events?${query}`, t.api);
      assert.equal(bad.status, 422, query);
    }
    const neighbour = await webhookTenant();
    assert.equal((await get(`/api/v1/conversations/${conversation.publicId}/events`, neighbour.api)).status, 404);
    assert.equal((await get('/api/v1/conversations/not-a-uuid/events', t.api)).status, 404);
    assert.equal((await get(`/api/v1/conversations/${conversation.publicId}/events`, t.portal)).status, 403);
  });

  it('parley webhook create | list | delete (real processes)', async function () {
    this.timeout(60_000);
    const t = await webhookTenant();
    const created = await cli(['webhook', 'create', '--company', String(t.company.id), '--url', 'https://example.com/hook', '--events', 'message.created, lead.created', '--description', 'From the CLI']);
    assert.equal(created.code, 0, created.stdout + created.stderr);
    const { webhook } = jsonLine(created) as { webhook: { id: number; secret: string; events: string[]; description: string } };
    assert.match(webhook.secret, /^whsec_/);
    assert.deepEqual([webhook.events, webhook.description], [['message.created', 'lead.created'], 'From the CLI']);
    assert.equal(server().ctx.secrets.open((await Webhook.findByPk(webhook.id))!.secretEncrypted), webhook.secret);

    const listed = await cli(['webhook', 'list', '--company', String(t.company.id)]);
    const { webhooks } = jsonLine(listed) as { webhooks: Array<Record<string, unknown>> };
    assert.deepEqual(webhooks.map((w) => w.id), [webhook.id]);
    assert.ok(!listed.stdout.includes(webhook.secret));

    const refused = await cli(['webhook', 'create', '--company', String(t.company.id), '--url', 'https://example.com/hook', '--events', 'message.deleted']);
    assert.equal(refused.code, 1);
    assert.ok((jsonLine(refused) as { errors: Record<string, unknown> }).errors);

    const deleted = await cli(['webhook', 'delete', '--company', String(t.company.id), '--webhook', String(webhook.id)]);
    assert.deepEqual(jsonLine(deleted), { deleted: true });
    assert.equal(await Webhook.count({ where: { companyId: t.company.id } }), 0);
    const again = await cli(['webhook', 'delete', '--company', String(t.company.id), '--webhook', String(webhook.id)]);
    assert.equal(again.code, 1);
  });
});
