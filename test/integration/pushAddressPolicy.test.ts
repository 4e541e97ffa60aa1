import { strict as assert } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { generateVAPIDKeys } from 'web-push';
import { JOB_KINDS, jobProcessors } from '../../src/boot/jobs';
import type { AppContext } from '../../src/context';
import { raisePushEvent } from '../../src/domain/push/events';
import { savePushSubscription } from '../../src/domain/push/subscriptions';
import { InProcessJobQueue } from '../../src/jobs/inProcessQueue';
import { PushSubscription } from '../../src/models';
import { AGENT_BASE, agentSurface } from '../../src/surfaces/agent';
import { agentTenant } from '../support/agent';
import { startFakePushService, type FakePushService } from '../support/fakePushService';
import { server } from '../support/hooks';
import { request } from '../support/http';
import { serveMiniApp } from '../support/miniApp';
import * as make from '../support/factories';

const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:push-policy-tests@parley.test' };
const keys = () => ({ p256dh: `p256dh-${randomBytes(6).toString('hex')}`, auth: `auth-${randomBytes(4).toString('hex')}` });

/**
 * Push endpoints are chosen by whoever registers a device, so the server must not connect wherever
 * they point: the outbound address policy (src/net/outboundAddress.ts, shared with the crawler) with
 * OUTBOUND_ALLOW_PRIVATE off, as in production. The suite's server turns it on for the local stand-in.
 */
describe('push endpoints obey the outbound address policy', function () {
  this.timeout(30_000);
  const withPolicy = (allowPrivate: boolean): AppContext => {
    const base = server().ctx;
    return { ...base, config: Object.freeze({ ...base.config, vapid: VAPID, outbound: { allowPrivate } }) };
  };

  describe('registration', () => {
    let strict: { url: string; close(): Promise<void> };
    before(async () => {
      const ctx = withPolicy(false);
      strict = await serveMiniApp((app) => app.use(AGENT_BASE, agentSurface({ ctx, actors: server().actors, watchers: server().watchers })));
    });
    after(() => strict.close());

    const subscribe = (token: string, endpoint: string) =>
      request('POST', '/api/agent/push/subscriptions', { token, body: { endpoint, keys: keys() }, baseUrl: strict.url });

    it('refuses an endpoint whose host is a private, loopback or metadata address literal (422 naming endpoint)', async () => {
      const { agent, token } = await agentTenant();
      const cases: Array<[string, string]> = [
        ['https://127.0.0.1:9443/push/x', 'a loopback address'],
        ['https://[::1]:9443/push/x', 'a loopback address'],
        ['https://[::ffff:127.0.0.1]/push/x', 'a loopback address'],
        ['https://10.1.2.3/push/x', 'a private address'],
        ['https://169.254.169.254/latest/meta-data', 'a cloud metadata address'],
      ];
      for (const [endpoint, description] of cases) {
        const reply = await subscribe(token, endpoint);
        assert.equal(reply.status, 422, endpoint);
        assert.equal(reply.body.code, 'validation_failed');
        assert.deepEqual(reply.body.errors, { endpoint: [`The endpoint field must not point at ${description}.`] }, endpoint);
        assert.equal(reply.body.message, `The endpoint field must not point at ${description}.`);
      }
      assert.equal(await PushSubscription.count({ where: { userId: agent.id } }), 0);
    });

    it('accepts a hostname and a public address: hostnames are judged after resolution, at delivery', async () => {
      const { token } = await agentTenant();
      assert.equal((await subscribe(token, `https://push.example.test/send/${randomBytes(6).toString('hex')}`)).status, 201);
      assert.equal((await subscribe(token, `https://8.8.8.8/push/${randomBytes(6).toString('hex')}`)).status, 201);
    });
  });

  describe('delivery', () => {
    let fake: FakePushService;
    let queue: InProcessJobQueue | undefined;
    before(async () => {
      fake = await startFakePushService();
    });
    after(() => fake?.close());
    afterEach(async () => {
      await queue?.close();
      queue = undefined;
    });

    /** Saves a device of the stand-in under another host of the same port, and raises one event for it. */
    async function deliverTo(allowPrivate: boolean, host: string) {
      const ctx = withPolicy(allowPrivate);
      queue = new InProcessJobQueue(ctx.logger, JOB_KINDS);
      const jobsCtx: AppContext = { ...ctx, jobs: queue };
      queue.process(jobProcessors(jobsCtx, { push: { ca: fake.ca } }));
      const { company } = await make.workspace();
      const agent = await make.user(company, 'agent');
      const device = fake.subscribe();
      const endpoint = device.endpoint.replace('127.0.0.1', host);
      await savePushSubscription(agent, { endpoint, p256dh: device.keys.p256dh, auth: device.keys.auth });
      raisePushEvent(jobsCtx, { event: 'handoff_requested', key: `handoff_requested:${randomUUID()}:1`, companyId: company.id, chatbotId: null, conversationId: randomUUID(), assignedUserId: null, visitor: 'V', text: 'asked.' });
      await queue.settled();
      return { device, endpoint };
    }

    it('never connects to an endpoint whose hostname resolves to loopback, and removes it', async () => {
      const { device, endpoint } = await deliverTo(false, 'localhost');
      assert.deepEqual(fake.requests(device), [], 'the push service stand-in saw no request');
      assert.equal(await PushSubscription.count({ where: { endpoint } }), 0, 'given up for good: the record is gone');
    });

    it('never connects to a saved endpoint that is a loopback literal, and removes it', async () => {
      const { device, endpoint } = await deliverTo(false, '127.0.0.1');
      assert.deepEqual(fake.requests(device), []);
      assert.equal(await PushSubscription.count({ where: { endpoint } }), 0);
    });

    it('reaches the same endpoint when private addresses are allowed (so the refusal above is the policy)', async () => {
      const { device, endpoint } = await deliverTo(true, 'localhost');
      assert.equal(fake.requests(device).length, 1);
      assert.equal(await PushSubscription.count({ where: { endpoint } }), 1);
    });
  });
});
