import { strict as assert } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { generateVAPIDKeys } from 'web-push';
import { JOB_KINDS, jobProcessors } from '../../src/boot/jobs';
import type { AppContext } from '../../src/context';
import { raisePushEvent, type PushEvent } from '../../src/domain/push/events';
import { savePushSubscription } from '../../src/domain/push/subscriptions';
import { BullJobQueue, startBullWorkers } from '../../src/jobs/bullQueue';
import { eventually } from '../support/eventually';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';
import { startFakePushService, type FakePushService, type FakeSubscription } from '../support/fakePushService';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:push-tests@parley.test' };

/**
 * The cluster-mode path: push jobs on BullMQ (their own key prefix here, so no other test's worker
 * takes them), run by BullMQ workers with Parley's backoff strategy, which honours `RetryAfter`.
 */
describe('web push on BullMQ (cluster mode)', function () {
  this.timeout(30_000);
  let fake: FakePushService;
  let queue: BullJobQueue;
  let workers: { close(): Promise<void> };
  let ctx: AppContext;
  const prefix = `${TEST_REDIS_PREFIX}push-${randomBytes(3).toString('hex')}:`;
  const saved = { ...JOB_KINDS['push-deliver'].policy };

  before(async () => {
    fake = await startFakePushService();
    fake.expectVapidKey(VAPID.publicKey);
    const base = server().ctx;
    queue = new BullJobQueue(REDIS_URL, prefix, JOB_KINDS);
    ctx = { ...base, config: Object.freeze({ ...base.config, vapid: VAPID, redisPrefix: prefix }), jobs: queue };
    const { 'push-fanout': fanout, 'push-deliver': deliver } = jobProcessors(ctx, { push: { ca: fake.ca } });
    workers = await startBullWorkers(REDIS_URL, prefix, JOB_KINDS, { 'push-fanout': fanout, 'push-deliver': deliver }, base.logger);
  });
  after(async () => {
    await workers?.close();
    await queue?.close();
    await fake?.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  afterEach(() => {
    Object.assign(JOB_KINDS['push-deliver'].policy, saved);
    assert.deepEqual(fake.rejected(), []);
  });

  async function agentWithDevice(): Promise<{ event: () => PushEvent; device: FakeSubscription }> {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const device = fake.subscribe();
    await savePushSubscription(agent, { endpoint: device.endpoint, p256dh: device.keys.p256dh, auth: device.keys.auth });
    const event = (): PushEvent => ({
      event: 'handoff_requested',
      key: `handoff_requested:${randomUUID()}:${Date.now()}`,
      companyId: company.id,
      chatbotId: null,
      conversationId: randomUUID(),
      assignedUserId: null,
      visitor: 'Lena Park',
      text: 'asked to talk to a person.',
    });
    return { event, device };
  }

  it('delivers through a worker, honouring Retry-After instead of the backoff', async () => {
    Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 60_000 });
    const { event, device } = await agentWithDevice();
    fake.script(device, { status: 503, headers: { 'Retry-After': '1' } });
    raisePushEvent(ctx, event());
    const seen = await eventually(() => fake.requests(device), (requests) => requests.length >= 2, 10_000);
    assert.deepEqual(seen.map((request) => request.status), [503, 201]);
    assert.ok(seen[1]!.at - seen[0]!.at >= 950, `waited ${seen[1]!.at - seen[0]!.at} ms`);
    assert.equal(fake.delivered(device)[0]!.payload!.title, 'Lena Park is waiting for a person');
  });

  it('retries a 503 without Retry-After with the policy backoff, and delivers once', async () => {
    Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 100 });
    const { event, device } = await agentWithDevice();
    fake.script(device, { status: 503 }, { status: 502 });
    raisePushEvent(ctx, event());
    await eventually(() => fake.delivered(device).length, (count) => count === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(fake.requests(device).map((request) => request.status), [503, 502, 201]);
  });

  it('remembers finished work: the same event raised again after delivery pushes nothing more', async () => {
    const { event, device } = await agentWithDevice();
    const once = event();
    raisePushEvent(ctx, once);
    raisePushEvent(ctx, once);
    await eventually(() => fake.delivered(device).length, (count) => count >= 1, 10_000);
    raisePushEvent(ctx, once);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(fake.requests(device).length, 1);
    raisePushEvent(ctx, event());
    await eventually(() => fake.delivered(device).length, (count) => count === 2, 10_000);
  });
});
