import { strict as assert } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { generateVAPIDKeys } from 'web-push';
import { JOB_KINDS, jobProcessors } from '../../src/boot/jobs';
import type { AppContext } from '../../src/context';
import { raisePushEvent } from '../../src/domain/push/events';
import { savePushSubscription } from '../../src/domain/push/subscriptions';
import { bullPrefix } from '../../src/jobs/bullConnections';
import { BullJobQueue } from '../../src/jobs/bullQueue';
import { InProcessJobQueue } from '../../src/jobs/inProcessQueue';
import { agentTenant } from '../support/agent';
import { REDIS_URL, TEST_ENV, TEST_REDIS_PREFIX } from '../support/env';
import { eventually } from '../support/eventually';
import { startFakePushService, type FakePushService } from '../support/fakePushService';
import { fakeLlm, server } from '../support/hooks';
import { scrape, type Scrape } from '../support/metrics';
import { childEnv, ROOT, Running, stopProcess } from '../support/processes';
import { connect } from '../support/sockets';
import { ask, newVisitor, widgetTenant } from '../support/widget';
import * as make from '../support/factories';

const TOKEN = TEST_ENV.METRICS_TOKEN!;
/** What a reverse proxy on the same host sends for an internet client; TRUST_PROXY (loopback) believes it. */
const PUBLIC_CLIENT = { 'X-Forwarded-For': '203.0.113.7' };

describe('/metrics access', () => {
  it('answers a loopback client without a token', async () => {
    const metrics = await scrape();
    assert.ok(metrics.value('parley_process_cpu_user_seconds_total') !== undefined);
  });

  it('answers 404 to a client behind a trusted proxy, unless it presents METRICS_TOKEN', async () => {
    const url = `${server().url}/metrics`;
    for (const headers of [PUBLIC_CLIENT, { ...PUBLIC_CLIENT, Authorization: `Bearer ${TOKEN}x` }, { ...PUBLIC_CLIENT, Authorization: TOKEN }]) {
      const refused = await fetch(url, { headers });
      assert.equal(refused.status, 404, JSON.stringify(headers));
      assert.deepEqual(await refused.json(), { message: 'The route GET /metrics could not be found.', code: 'route_not_found' });
    }
    const metrics = await scrape(server().url, { ...PUBLIC_CLIENT, Authorization: `Bearer ${TOKEN}` });
    assert.ok(metrics.value('parley_http_request_duration_seconds_count') !== undefined);
  });
});

describe('domain metrics', function () {
  this.timeout(30_000);
  beforeEach(() => fakeLlm().reset());

  it('times a widget answer by provider, from the request and to its first streamed text', async () => {
    const tenant = await widgetTenant();
    const labels = { provider: tenant.bot.provider, outcome: 'ok' };
    const before = await scrape();
    fakeLlm().script({ reply: 'Parcels leave within two working days.' });
    const reply = await ask(tenant, { visitor_id: newVisitor(), message: 'When do you ship?' });
    assert.equal(reply.events.at(-1)?.event, 'done');

    const after = await scrape();
    const grew = (name: string, by: Record<string, string>) => after.count(name, by) - before.count(name, by);
    assert.equal(grew('parley_ai_provider_request_duration_seconds_count', labels), 1);
    assert.equal(grew('parley_ai_provider_first_token_seconds_count', { provider: tenant.bot.provider }), 1);
    assert.equal(grew('parley_ai_provider_errors_total', { provider: tenant.bot.provider }), 0);
  });

  it('counts the open stream and the busy conversation actor while a provider stalls, then the provider timeout', async () => {
    const tenant = await widgetTenant();
    const provider = tenant.bot.provider;
    const before = await scrape();
    fakeLlm().script({ reply: 'One moment while I look that up.', stall: 'mid-stream', times: 1 });
    const answer = ask(tenant, { visitor_id: newVisitor(), message: 'Where is my parcel?' });

    // The provider stalls until PROVIDER_TIMEOUT_MS (3 s in tests): the stream and its actor are live meanwhile.
    const during = await eventually(scrape, (m) => m.count('parley_sse_streams_open') === before.count('parley_sse_streams_open') + 1);
    assert.equal(during.count('parley_sse_streams_open'), before.count('parley_sse_streams_open') + 1);
    assert.ok(during.count('parley_actors_active', { kind: 'conversation' }) >= 1);

    const reply = await answer;
    assert.deepEqual(reply.events.at(-1)?.data.code, 'provider_unreachable');
    const after = await eventually(scrape, (m) => m.count('parley_sse_streams_open') === before.count('parley_sse_streams_open'));
    assert.equal(after.count('parley_sse_streams_open'), before.count('parley_sse_streams_open'), 'the closed stream is no longer counted');
    const grew = (name: string, labels: Record<string, string>) => after.count(name, labels) - before.count(name, labels);
    assert.equal(grew('parley_ai_provider_errors_total', { provider, failure: 'timeout' }), 1);
    assert.equal(grew('parley_ai_provider_request_duration_seconds_count', { provider, outcome: 'error' }), 1);
  });

  it('reads shards owned and open sockets by kind at scrape time', async () => {
    const metrics = await scrape();
    assert.equal(metrics.value('parley_actor_shards_owned'), server().actors.ownedShards().length);
    assert.ok(metrics.count('parley_actor_shards_owned') > 0);
    assert.ok(metrics.value('parley_actors_active', { kind: 'visitor' }) !== undefined, 'every hosted kind is listed, idle ones at 0');

    const tenant = await widgetTenant();
    const visitor = newVisitor();
    const started = await ask(tenant, { visitor_id: visitor, message: 'Hello' });
    const conversationId = started.events[0]!.data.conversation_id as string;
    const agent = await agentTenant();
    const open = (m: Scrape) => ({ agent: m.count('parley_realtime_sockets_open', { kind: 'agent' }), widget: m.count('parley_realtime_sockets_open', { kind: 'widget' }) });
    const baseline = open(await scrape());

    const sockets = [
      await connect(server().url, { token: agent.token }),
      await connect(server().url, { key: tenant.bot.publicKey, visitor_id: visitor, conversation_id: conversationId }),
    ];
    try {
      assert.deepEqual(open(await scrape()), { agent: baseline.agent + 1, widget: baseline.widget + 1 });
    } finally {
      for (const socket of sockets) socket.close();
    }
    const after = await eventually(async () => open(await scrape()), (counts) => counts.agent === baseline.agent && counts.widget === baseline.widget);
    assert.deepEqual(after, baseline);
  });

  it('reads the depth of the BullMQ queue by job kind at scrape time', async () => {
    const payload = { sourceId: 2_000_000_000 + randomBytes(2).readUInt16BE() };
    const waiting = (m: Scrape) => m.count('parley_job_queue_depth', { kind: 'index-source', state: 'waiting' });
    const baseline = waiting(await scrape());
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('index-source', { connection, prefix: bullPrefix(TEST_REDIS_PREFIX) });
    try {
      // No worker runs on the suite's queues here, so the job waits.
      await server().ctx.jobs.enqueue('index-source', payload);
      assert.equal(waiting(await scrape()), baseline + 1);
      assert.ok((await scrape()).value('parley_job_queue_depth', { kind: 'push-deliver', state: 'delayed' }) !== undefined, 'every kind and state is listed');
    } finally {
      await queue.remove(JOB_KINDS['index-source'].idOf(payload));
      await queue.close();
      await connection.quit();
    }
    assert.equal(waiting(await scrape()), baseline);
  });

  describe('web push through the job processors', () => {
    const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:metrics-tests@parley.test' };
    let fake: FakePushService;
    let queue: InProcessJobQueue;

    before(async () => {
      fake = await startFakePushService();
      fake.expectVapidKey(VAPID.publicKey);
    });
    after(async () => {
      await queue?.close();
      await fake?.close();
    });

    it('counts deliveries by outcome and job runs by kind, in the metrics /metrics serves', async () => {
      const base = server().ctx;
      queue = new InProcessJobQueue(base.logger, JOB_KINDS);
      // The suite's server has no VAPID keys; this context has, and shares its metrics.
      const ctx: AppContext = { ...base, config: Object.freeze({ ...base.config, vapid: VAPID }), jobs: queue };
      queue.process(jobProcessors(ctx, { push: { ca: fake.ca } }));
      const { company, owner } = await make.workspace();
      const [kept, gone] = [fake.subscribe(), fake.subscribe()];
      for (const device of [kept, gone]) await savePushSubscription(owner, { endpoint: device.endpoint, p256dh: device.keys.p256dh, auth: device.keys.auth });
      fake.script(gone, { status: 410 });

      const before = await scrape();
      raisePushEvent(ctx, {
        event: 'handoff_requested',
        key: `handoff_requested:${randomUUID()}:1`,
        companyId: company.id,
        chatbotId: null,
        conversationId: randomUUID(),
        assignedUserId: null,
        visitor: 'Lena Park',
        text: 'I would like to talk to a person.',
      });
      await queue.settled();
      assert.equal(fake.delivered(kept).length, 1);

      const after = await scrape();
      const grew = (name: string, labels: Record<string, string>) => after.count(name, labels) - before.count(name, labels);
      assert.deepEqual(
        { sent: grew('parley_push_deliveries_total', { outcome: 'sent' }), gone: grew('parley_push_deliveries_total', { outcome: 'gone' }) },
        { sent: 1, gone: 1 },
      );
      assert.equal(grew('parley_job_runs_total', { kind: 'push-fanout', outcome: 'completed' }), 1);
      assert.equal(grew('parley_job_runs_total', { kind: 'push-deliver', outcome: 'completed' }), 2);
      assert.deepEqual(fake.rejected(), []);
    });
  });
});

describe('the worker\'s operations port (WORKER_PORT)', function () {
  this.timeout(30_000);
  // Its own queues, so it takes no job of the suite's and the counts below are its alone.
  const prefix = `${TEST_REDIS_PREFIX}metrics-worker-${randomBytes(3).toString('hex')}:`;
  let worker: Running | undefined;
  let url: string;

  before(async () => {
    worker = new Running(resolve(ROOT, 'dist/workers/index.js'), [], { env: childEnv({ ...TEST_ENV, REDIS_PREFIX: prefix, WORKER_PORT: '0', LOG_LEVEL: 'info' }) });
    const ready = await worker.waitForLog((entry) => entry.msg === 'worker ready', 20_000);
    url = `http://127.0.0.1:${String(ready.port)}`;
  });
  after(() => stopProcess(worker));

  it('answers /healthz, and /readyz with its database and Redis', async () => {
    assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok', redis: 'ok' } });
    const other = await fetch(`${url}/api/v1/me`);
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as { code: string }).code, 'route_not_found');
  });

  it('serves /metrics under the web process\'s rules', async () => {
    assert.equal((await fetch(`${url}/metrics`, { headers: PUBLIC_CLIENT })).status, 404);
    assert.equal((await fetch(`${url}/metrics`, { headers: { ...PUBLIC_CLIENT, Authorization: 'Bearer wrong-token-0123456789' } })).status, 404);
    await scrape(url, { ...PUBLIC_CLIENT, Authorization: `Bearer ${TOKEN}` });
    const metrics = await scrape(url);
    assert.ok(metrics.value('parley_process_cpu_user_seconds_total') !== undefined);
  });

  it('counts the jobs it runs, by kind and outcome', async () => {
    const queue = new BullJobQueue(REDIS_URL, prefix, JOB_KINDS);
    try {
      // A source that does not exist: the job completes without work.
      await queue.enqueue('index-source', { sourceId: 2_000_000_000 + randomBytes(2).readUInt16BE() });
    } finally {
      await queue.close();
    }
    const completed = (m: Scrape) => m.count('parley_job_runs_total', { kind: 'index-source', outcome: 'completed' });
    const metrics = await eventually(() => scrape(url), (m) => completed(m) === 1);
    assert.equal(completed(metrics), 1);
    assert.equal(metrics.value('parley_job_queue_depth', { kind: 'index-source' }), 0, 'nothing left waiting, running or delayed');
  });
});
