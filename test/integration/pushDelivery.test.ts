import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { generateRequestDetails, generateVAPIDKeys, getVapidHeaders, sendNotification } from 'web-push';
import { JOB_KINDS, jobProcessors } from '../../src/boot/jobs';
import type { AppContext } from '../../src/context';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { savePreferences } from '../../src/domain/notifications/storedPreferences';
import type { NotificationEvent, PreferencesChange } from '../../src/domain/notifications/preferences';
import { raisePushEvent, type PushEvent } from '../../src/domain/push/events';
import { savePushSubscription } from '../../src/domain/push/subscriptions';
import type { JobName, JobPayloads, JobProcessors, JobQueue } from '../../src/jobs/definitions';
import { InProcessJobQueue } from '../../src/jobs/inProcessQueue';
import { Chatbot, PushSubscription, type User } from '../../src/models';
import { startFakePushService, type FakePushService, type FakeSubscription, type PushRequest } from '../support/fakePushService';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:push-tests@parley.test' };
const APP_URL = 'http://parley.test';

/**
 * Push fan-out and delivery through the real job processors (in-process queue, as in single-node
 * mode), real Postgres and Redis, and web-push talking HTTPS to a push-service stand-in that checks
 * the VAPID signature and decrypts every notification on its own.
 */
describe('web push: fan-out and delivery', function () {
  this.timeout(30_000);
  let fake: FakePushService;
  let queue: InProcessJobQueue | undefined;
  const savedPolicies = { deliver: { ...JOB_KINDS['push-deliver'].policy }, fanout: { ...JOB_KINDS['push-fanout'].policy } };

  before(async () => {
    fake = await startFakePushService();
    fake.expectVapidKey(VAPID.publicKey);
  });
  after(() => fake?.close());
  afterEach(async () => {
    await queue?.close();
    queue = undefined;
    Object.assign(JOB_KINDS['push-deliver'].policy, savedPolicies.deliver);
    Object.assign(JOB_KINDS['push-fanout'].policy, savedPolicies.fanout);
    assert.deepEqual(fake.rejected(), [], 'every request carried a valid VAPID signature and a decryptable body');
  });

  let processors: JobProcessors | undefined;

  /** A context with VAPID keys whose jobs run here, like a single node's; the suite's own server has none. */
  function pushContext(options: { now?: () => Date; throttleWindowMs?: number; redis?: boolean } = {}): AppContext {
    const base = server().ctx;
    queue = new InProcessJobQueue(base.logger, JOB_KINDS);
    const ctx: AppContext = { ...base, config: Object.freeze({ ...base.config, vapid: VAPID }), jobs: queue, redis: options.redis === false ? undefined : base.redis };
    processors = jobProcessors(ctx, { push: { ca: fake.ca, now: options.now, throttleWindowMs: options.throttleWindowMs } });
    queue.process(processors);
    return ctx;
  }

  /** Runs the fan-out as raised at `raisedAt` (tests that move the clock), then waits for its deliveries. */
  async function fanOutAt(event: PushEvent, raisedAt: Date): Promise<void> {
    await processors!['push-fanout']({ ...event, raisedAt: raisedAt.getTime() }, { attempt: 1, finalAttempt: false });
    await queue!.settled();
  }

  async function raise(ctx: AppContext, event: PushEvent): Promise<void> {
    raisePushEvent(ctx, event);
    await queue!.settled();
  }

  async function device(user: User): Promise<FakeSubscription> {
    const subscription = fake.subscribe();
    await savePushSubscription(user, { endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth, deviceName: 'Phone' });
    return subscription;
  }

  /** A workspace with every kind of user, each with a device, and an agent of another workspace. */
  async function team() {
    const { company, owner } = await make.workspace();
    const bot = await make.chatbot(company);
    const users = {
      owner,
      admin: await make.user(company, 'admin'),
      ana: await make.user(company, 'agent', 'Ana'),
      ben: await make.user(company, 'agent', 'Ben'),
      viewer: await make.user(company, 'viewer'),
      suspended: await make.user(company, 'agent'),
      outsider: await make.user((await make.workspace()).company, 'agent'),
    };
    await setUserSuspended(users.suspended, true);
    const devices = {} as Record<keyof typeof users, FakeSubscription>;
    for (const [name, user] of Object.entries(users)) devices[name as keyof typeof users] = await device(user);
    const event = (kind: NotificationEvent, overrides: Partial<PushEvent> = {}): PushEvent => ({
      event: kind,
      key: `${kind}:${randomUUID()}:1`,
      companyId: company.id,
      chatbotId: bot.id,
      conversationId: kind === 'visitor_arrived' ? null : randomUUID(),
      assignedUserId: null,
      visitor: 'Lena Park',
      text: 'Is the blue jacket back in stock?',
      ...overrides,
    });
    /** Which of this team's devices got a notification (with this tag, when given), by user name. */
    const reached = (tag?: string) =>
      Object.entries(devices)
        .filter(([, subscription]) => fake.delivered(subscription).some((push) => tag === undefined || push.payload?.tag === tag))
        .map(([name]) => name)
        .sort();
    return { company, bot, users, devices, event, reached };
  }

  const pushesTo = (subscription: FakeSubscription, key?: string): PushRequest[] => fake.delivered(subscription).filter((push) => !key || push.payload?.tag === key);

  describe('recipients', () => {
    it('handoff_requested and chat_started reach every handler of the workspace, once per device; not viewers, suspended users or other workspaces', async () => {
      const ctx = pushContext();
      const t = await team();
      const second = await device(t.users.ana);
      for (const kind of ['handoff_requested', 'chat_started'] as const) {
        const event = t.event(kind);
        await raise(ctx, event);
        assert.deepEqual(t.reached(`parley-${event.conversationId}`), ['admin', 'ana', 'ben', 'owner'], kind);
        assert.equal(pushesTo(second, `parley-${event.conversationId}`).length, 1, `${kind}: each of an agent's devices is notified`);
        for (const name of ['admin', 'ana', 'ben', 'owner'] as const) assert.equal(pushesTo(t.devices[name], `parley-${event.conversationId}`).length, 1, `${kind} once to ${name}`);
      }
    });

    it('visitor_message, sla_breach and conversation_assigned go to the assigned agent alone, or to every handler when unassigned', async () => {
      const ctx = pushContext();
      const t = await team();
      for (const kind of ['visitor_message', 'sla_breach', 'conversation_assigned'] as const) {
        const mine = t.event(kind, { assignedUserId: t.users.ben.id });
        await raise(ctx, mine);
        assert.deepEqual(t.reached(`parley-${mine.conversationId}`), ['ben'], `${kind} assigned`);
        const waiting = t.event(kind);
        await raise(ctx, waiting);
        assert.deepEqual(t.reached(`parley-${waiting.conversationId}`), ['admin', 'ana', 'ben', 'owner'], `${kind} unassigned`);
      }
    });

    it('an assignee who can no longer handle conversations does not swallow the event: every handler hears of it', async () => {
      const ctx = pushContext();
      const t = await team();
      const event = t.event('sla_breach', { assignedUserId: t.users.suspended.id });
      await raise(ctx, event);
      assert.deepEqual(t.reached(`parley-${event.conversationId}`), ['admin', 'ana', 'ben', 'owner']);
    });

    it('visitor_arrived only for a chatbot that shows live visitors, and it leads to the visitors list', async () => {
      const ctx = pushContext();
      const t = await team();
      await raise(ctx, t.event('visitor_arrived'));
      assert.deepEqual(t.reached(), [], 'live visitors off (the default): nobody is told');
      await Chatbot.update({ branding: { live_visitors: true } }, { where: { id: t.bot.id } });
      await raise(ctx, t.event('visitor_arrived', { text: 'Spring sale - Fjord Shop' }));
      assert.deepEqual(t.reached('parley-visitors'), ['admin', 'ana', 'ben', 'owner']);
      const [push] = pushesTo(t.devices.ana);
      assert.equal(push!.payload!.url, `${APP_URL}/inbox`);
      assert.equal(push!.payload!.conversation_id, null);
      await Chatbot.update({ isActive: false }, { where: { id: t.bot.id } });
      await raise(ctx, t.event('visitor_arrived'));
      assert.equal(pushesTo(t.devices.ana).length, 1, 'an inactive chatbot announces nobody');
    });

    it('a suspended workspace hears nothing', async () => {
      const ctx = pushContext();
      const t = await team();
      await setWorkspaceSuspended(t.company, true);
      await raise(ctx, t.event('handoff_requested'));
      assert.deepEqual(t.reached(), []);
    });
  });

  describe('payload', () => {
    it('carries the event, wording, link, tag and the agent\'s sound settings, encrypted, with TTL and urgency per event', async () => {
      const ctx = pushContext();
      const t = await team();
      await savePreferences(t.users.ana, { soundEnabled: false, vibrateEnabled: false, volume: 35, soundPack: 'classic', events: { handoff_requested: { push: true, sound: 'chime' } } });
      const expected: Record<NotificationEvent, { title: string; body: string; ttl: number; urgency: string }> = {
        handoff_requested: { title: 'Lena Park is waiting for a person', body: 'Lena Park asked to talk to a person.', ttl: 3600, urgency: 'high' },
        sla_breach: { title: 'Lena Park is still waiting', body: 'Lena Park has waited past the first-response target.', ttl: 3600, urgency: 'high' },
        chat_started: { title: 'Lena Park started a chat', body: 'Is the blue jacket back in stock?', ttl: 1800, urgency: 'normal' },
        visitor_message: { title: 'New message from Lena Park', body: 'Is the blue jacket back in stock?', ttl: 900, urgency: 'normal' },
        visitor_arrived: { title: 'Lena Park is on your site', body: 'Is the blue jacket back in stock?', ttl: 300, urgency: 'low' },
        conversation_assigned: { title: 'Lena Park was assigned to you', body: 'Is the blue jacket back in stock?', ttl: 600, urgency: 'high' },
      };
      await Chatbot.update({ branding: { live_visitors: true } }, { where: { id: t.bot.id } });
      for (const kind of Object.keys(expected) as NotificationEvent[]) {
        const phrase = kind === 'handoff_requested' ? 'asked to talk to a person.' : kind === 'sla_breach' ? 'has waited past the first-response target.' : undefined;
        const event = t.event(kind, phrase ? { text: phrase } : {});
        await raise(ctx, event);
        const pushes = fake.delivered(t.devices.ana).filter((push) => push.payload?.event === kind);
        assert.equal(pushes.length, 1, kind);
        const push = pushes[0]!;
        const conversation = event.conversationId;
        assert.deepEqual(push.payload, {
          event: kind,
          title: expected[kind].title,
          body: expected[kind].body,
          url: conversation ? `${APP_URL}/inbox/conversations/${conversation}` : `${APP_URL}/inbox`,
          conversation_id: conversation,
          tag: conversation ? `parley-${conversation}` : 'parley-visitors',
          sound: kind === 'handoff_requested' ? 'chime' : null,
          sound_pack: 'classic',
          sound_enabled: false,
          vibrate: false,
          volume: 35,
        });
        assert.ok(push.ttl! <= expected[kind].ttl && push.ttl! >= expected[kind].ttl - 2, `${kind} TTL ${push.ttl}`);
        assert.equal(push.urgency, expected[kind].urgency, kind);
        assert.deepEqual({ aud: push.vapid!.aud, sub: push.vapid!.sub, k: push.vapid!.k }, { aud: fake.origin, sub: VAPID.subject, k: VAPID.publicKey });
        // The owner has default settings: the same event with the defaults.
        const owners = fake.delivered(t.devices.owner).filter((entry) => entry.payload?.event === kind);
        assert.deepEqual(
          { sound: owners[0]!.payload!.sound, sound_pack: owners[0]!.payload!.sound_pack, sound_enabled: owners[0]!.payload!.sound_enabled, vibrate: owners[0]!.payload!.vibrate, volume: owners[0]!.payload!.volume },
          { sound: null, sound_pack: 'default', sound_enabled: true, vibrate: true, volume: 80 },
        );
      }
    });

    it('shortens a long message to one line with an ellipsis', async () => {
      const ctx = pushContext();
      const t = await team();
      await raise(ctx, t.event('visitor_message', { text: `Hello\n\nthere ${'x'.repeat(300)}`, assignedUserId: t.users.ana.id }));
      const body = fake.delivered(t.devices.ana)[0]!.payload!.body as string;
      assert.equal([...body].length, 140);
      assert.ok(body.startsWith('Hello there xxx') && body.endsWith('…'), body);
    });
  });

  describe('preferences', () => {
    async function onlyAna(change: PreferencesChange, options: { now?: () => Date } = {}) {
      const ctx = pushContext(options);
      const t = await team();
      await savePreferences(t.users.ana, change);
      const event = t.event('handoff_requested');
      await raise(ctx, event);
      return { reached: t.reached(`parley-${event.conversationId}`), t, ctx };
    }
    const everyone = ['admin', 'ana', 'ben', 'owner'];
    const allButAna = ['admin', 'ben', 'owner'];

    it('the master switch off silences every event', async () => {
      assert.deepEqual((await onlyAna({ pushEnabled: false })).reached, allButAna);
    });

    it('an event switched off is not pushed; the others still are', async () => {
      const { reached, t, ctx } = await onlyAna({ events: { handoff_requested: { push: false } } });
      assert.deepEqual(reached, allButAna);
      const chat = t.event('chat_started');
      await raise(ctx, chat);
      assert.deepEqual(t.reached(`parley-${chat.conversationId}`), everyone);
    });

    it('do-not-disturb holds pushes until it runs out', async () => {
      const clock = { now: new Date() };
      pushContext({ now: () => clock.now });
      const t = await team();
      await savePreferences(t.users.ana, { dndMinutes: 30 }, clock.now);
      const during = t.event('handoff_requested');
      await fanOutAt(during, clock.now);
      assert.deepEqual(t.reached(`parley-${during.conversationId}`), allButAna);
      clock.now = new Date(clock.now.getTime() + 30 * 60_000 + 1);
      const after = t.event('handoff_requested');
      await fanOutAt(after, clock.now);
      assert.deepEqual(t.reached(`parley-${after.conversationId}`), everyone);
    });

    it('the chatbot filter lets through only the chatbots listed', async () => {
      const ctx = pushContext();
      const t = await team();
      const other = await make.chatbot(t.company);
      await savePreferences(t.users.ana, { chatbotFilter: [other.id] });
      const fromFirst = t.event('handoff_requested');
      await raise(ctx, fromFirst);
      assert.deepEqual(t.reached(`parley-${fromFirst.conversationId}`), allButAna);
      const fromOther = t.event('handoff_requested', { chatbotId: other.id });
      await raise(ctx, fromOther);
      assert.deepEqual(t.reached(`parley-${fromOther.conversationId}`), everyone);
    });

    it('quiet hours across midnight are read on the agent\'s clock in their zone', async () => {
      const clock = { now: new Date() };
      pushContext({ now: () => clock.now });
      const t = await team();
      await savePreferences(t.users.ana, { quietHours: { start: '22:00', end: '06:00' }, quietHoursTz: 'America/Los_Angeles' });
      await savePreferences(t.users.ben, { quietHours: { start: '22:00', end: '06:00' }, quietHoursTz: 'Asia/Tokyo' });
      // The admin saved no zone for quiet hours: her own (Berlin) applies.
      await t.users.admin.update({ timezone: 'Europe/Berlin' });
      await savePreferences(t.users.admin, { quietHours: { start: '23:00', end: '01:00' } });
      const steps: Array<[string, string[], string]> = [
        ['2026-01-15T07:30:00Z', ['admin', 'ben', 'owner'], 'LA 23:30 quiet; Tokyo 16:30; Berlin 08:30'],
        ['2026-01-15T13:59:00Z', ['admin', 'owner'], 'LA 05:59 still quiet; Tokyo 22:59 quiet'],
        ['2026-01-15T14:00:00Z', ['admin', 'ana', 'owner'], 'LA 06:00 over (the end is exclusive); Tokyo 23:00 quiet'],
        ['2026-01-15T21:00:00Z', ['admin', 'ana', 'ben', 'owner'], 'LA 13:00; Tokyo 06:00 over'],
        ['2026-01-15T23:30:00Z', ['ana', 'ben', 'owner'], 'Berlin 00:30: the admin\'s own zone'],
      ];
      for (const [at, expected, why] of steps) {
        clock.now = new Date(at);
        const event = t.event('handoff_requested');
        await fanOutAt(event, clock.now);
        assert.deepEqual(t.reached(`parley-${event.conversationId}`), expected, `${at}: ${why}`);
      }
    });
  });

  describe('push service answers', () => {
    it('410 Gone removes the subscription and is not retried; 404 likewise', async () => {
      const ctx = pushContext();
      const t = await team();
      fake.script(t.devices.ana, { status: 410 });
      fake.script(t.devices.ben, { status: 404 });
      await raise(ctx, t.event('handoff_requested'));
      assert.equal(fake.requests(t.devices.ana).length, 1);
      assert.equal(fake.requests(t.devices.ben).length, 1);
      assert.equal(await PushSubscription.count({ where: { endpoint: [t.devices.ana.endpoint, t.devices.ben.endpoint] } }), 0);
      assert.equal(await PushSubscription.count({ where: { endpoint: t.devices.owner.endpoint } }), 1);
      const next = t.event('handoff_requested');
      await raise(ctx, next);
      assert.deepEqual(t.reached(`parley-${next.conversationId}`), ['admin', 'owner'], 'removed devices are not tried again');
      assert.equal(fake.requests(t.devices.ana).length, 1);
    });

    it('another 4xx gives up at once and keeps the subscription', async () => {
      const ctx = pushContext();
      const t = await team();
      fake.script(t.devices.ana, { status: 400 });
      await raise(ctx, t.event('handoff_requested'));
      assert.equal(fake.requests(t.devices.ana).length, 1);
      assert.equal(fake.delivered(t.devices.ana).length, 0);
      assert.equal(await PushSubscription.count({ where: { endpoint: t.devices.ana.endpoint } }), 1);
    });

    it('a subscription whose keys cannot be encrypted to is given up on without a request or a retry', async () => {
      const ctx = pushContext();
      const { company } = await make.workspace();
      const agent = await make.user(company, 'agent');
      const broken = fake.subscribe();
      await savePushSubscription(agent, { endpoint: broken.endpoint, p256dh: 'not-a-key', auth: broken.keys.auth });
      Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 20, attempts: 3 });
      const attempts: number[] = [];
      const real = processors!;
      queue!.process({ ...real, 'push-deliver': async (job, attempt) => void (attempts.push(attempt.attempt), await real['push-deliver'](job, attempt)) });
      await raise(ctx, { event: 'handoff_requested', key: `handoff_requested:${randomUUID()}:1`, companyId: company.id, chatbotId: null, conversationId: randomUUID(), assignedUserId: null, visitor: 'V', text: 'asked.' });
      assert.deepEqual(attempts, [1], 'not retried: the keys will not get better');
      assert.deepEqual(fake.requests(broken), []);
      assert.equal(await PushSubscription.count({ where: { endpoint: broken.endpoint } }), 1);
    });

    it('a 503 is retried with backoff and the notification arrives exactly once', async () => {
      Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 50 });
      const ctx = pushContext();
      const t = await team();
      fake.script(t.devices.ana, { status: 503 }, { status: 503 });
      await raise(ctx, t.event('handoff_requested'));
      assert.deepEqual(fake.requests(t.devices.ana).map((entry) => entry.status), [503, 503, 201]);
      assert.equal(fake.delivered(t.devices.ana).length, 1);
      assert.equal(fake.delivered(t.devices.ben).length, 1, 'other devices are not held up or repeated');
    });

    it('honours Retry-After in seconds and as an HTTP date rather than the backoff (429 and 503)', async () => {
      Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 60_000 });
      const ctx = pushContext();
      const t = await team();
      fake.script(t.devices.ana, { status: 429, headers: { 'Retry-After': '1' } });
      fake.script(t.devices.ben, { status: 503, headers: { 'Retry-After': new Date(Date.now() + 2_000).toUTCString() } });
      const started = Date.now();
      await raise(ctx, t.event('handoff_requested'));
      assert.ok(Date.now() - started < 10_000, 'did not wait for the 60 s backoff');
      const [first, second] = fake.requests(t.devices.ana);
      assert.deepEqual([first!.status, second!.status], [429, 201]);
      assert.ok(second!.at - first!.at >= 950, `waited ${second!.at - first!.at} ms for Retry-After: 1`);
      const [benFirst, benSecond] = fake.requests(t.devices.ben);
      assert.deepEqual([benFirst!.status, benSecond!.status], [503, 201]);
      assert.ok(benSecond!.at - benFirst!.at >= 900, `waited ${benSecond!.at - benFirst!.at} ms for an HTTP-date Retry-After`);
      assert.ok(second!.ttl! < 3600, 'the retry carries the TTL left, not the full one');
    });

    it('gives up when Retry-After reaches past the notification\'s TTL', async () => {
      const ctx = pushContext();
      const t = await team();
      await Chatbot.update({ branding: { live_visitors: true } }, { where: { id: t.bot.id } });
      fake.script(t.devices.ana, { status: 429, headers: { 'Retry-After': '600' } }); // visitor_arrived lives 300 s
      await raise(ctx, t.event('visitor_arrived'));
      assert.deepEqual(fake.requests(t.devices.ana).map((entry) => entry.status), [429]);
      assert.equal(await PushSubscription.count({ where: { endpoint: t.devices.ana.endpoint } }), 1);
    });

    it('a network failure is retried until the attempts run out', async () => {
      Object.assign(JOB_KINDS['push-deliver'].policy, { backoffMs: 20, attempts: 3 });
      const ctx = pushContext();
      const { company } = await make.workspace();
      const agent = await make.user(company, 'agent');
      const closed = await startFakePushService();
      const subscription = closed.subscribe();
      await closed.close(); // nothing listens at that address any more
      await savePushSubscription(agent, { endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth });
      const attempts: number[] = [];
      const real = processors!;
      queue!.process({ ...real, 'push-deliver': async (job, attempt) => void (attempts.push(attempt.attempt), await real['push-deliver'](job, attempt)) });
      await raise(ctx, { event: 'handoff_requested', key: `handoff_requested:${randomUUID()}:1`, companyId: company.id, chatbotId: null, conversationId: randomUUID(), assignedUserId: null, visitor: 'V', text: 'asked.' });
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.equal(await PushSubscription.count({ where: { endpoint: subscription.endpoint } }), 1, 'a network failure says nothing about the device');
    });
  });

  describe('duplicates and throttling', () => {
    it('an event raised twice is pushed once, even after the first delivery finished', async () => {
      const ctx = pushContext();
      const t = await team();
      const event = t.event('handoff_requested');
      raisePushEvent(ctx, event);
      raisePushEvent(ctx, event);
      await queue!.settled();
      raisePushEvent(ctx, event);
      await queue!.settled();
      for (const name of ['admin', 'ana', 'ben', 'owner'] as const) assert.equal(fake.delivered(t.devices[name]).length, 1, name);
    });

    it('a fan-out run again (a retry after a crash) queues no second delivery', async () => {
      pushContext();
      const t = await team();
      const event = t.event('handoff_requested');
      const now = new Date();
      await fanOutAt(event, now);
      await fanOutAt(event, now);
      for (const name of ['admin', 'ana', 'ben', 'owner'] as const) assert.equal(fake.delivered(t.devices[name]).length, 1, name);
    });

    for (const store of ['Redis', 'memory'] as const) {
      it(`visitor_message: at most one push per conversation per agent per window (${store})`, async () => {
        const ctx = pushContext({ throttleWindowMs: 1_500, redis: store === 'Redis' });
        const t = await team();
        const conversation = randomUUID();
        const message = (n: number, extra: Partial<PushEvent> = {}) => t.event('visitor_message', { conversationId: conversation, key: `visitor_message:${conversation}:${n}`, text: `message ${n}`, ...extra });
        for (let n = 1; n <= 3; n += 1) await raise(ctx, message(n));
        assert.deepEqual(pushesTo(t.devices.ana).map((push) => push.payload!.body), ['message 1']);
        const elsewhere = t.event('visitor_message');
        await raise(ctx, elsewhere);
        assert.equal(pushesTo(t.devices.ana, `parley-${elsewhere.conversationId}`).length, 1, 'another conversation has its own window');
        // Ben takes over: his window is his own, Ana hears nothing more of it.
        await raise(ctx, message(4, { assignedUserId: t.users.ben.id }));
        assert.deepEqual(pushesTo(t.devices.ben, `parley-${conversation}`).map((push) => push.payload!.body), ['message 1']);
        await new Promise((resolve) => setTimeout(resolve, 1_600));
        await raise(ctx, message(5, { assignedUserId: t.users.ben.id }));
        assert.deepEqual(pushesTo(t.devices.ben, `parley-${conversation}`).map((push) => push.payload!.body), ['message 1', 'message 5']);
        assert.deepEqual(pushesTo(t.devices.ana, `parley-${conversation}`).map((push) => push.payload!.body), ['message 1']);
        // Other events are never throttled.
        await raise(ctx, t.event('sla_breach', { conversationId: conversation }));
        await raise(ctx, t.event('handoff_requested', { conversationId: conversation }));
        assert.equal(pushesTo(t.devices.ana, `parley-${conversation}`).length, 3);
      });
    }
  });

  describe('unconfigured server', () => {
    it('queues nothing without VAPID keys, and one fan-out job per event with them', async () => {
      const queued: Array<{ name: JobName; payload: JobPayloads[JobName] }> = [];
      const spy: JobQueue = { enqueue: async (name, payload) => void queued.push({ name, payload }), close: async () => undefined };
      const base = server().ctx;
      const event: PushEvent = { event: 'handoff_requested', key: 'handoff_requested:x:1', companyId: 1, chatbotId: 1, conversationId: randomUUID(), assignedUserId: null, visitor: 'V', text: 't' };
      raisePushEvent({ ...base, jobs: spy }, event);
      assert.equal(base.config.vapid, undefined);
      assert.equal(queued.length, 0);
      const before = Date.now();
      raisePushEvent({ ...base, config: { ...base.config, vapid: VAPID }, jobs: spy }, event);
      assert.equal(queued.length, 1);
      assert.equal(queued[0]!.name, 'push-fanout');
      const { raisedAt, ...rest } = queued[0]!.payload as JobPayloads['push-fanout'];
      assert.deepEqual(rest, event);
      assert.ok(raisedAt >= before && raisedAt <= Date.now());
    });

    it('a queue that refuses the job does not throw into the actor', async () => {
      const base = server().ctx;
      const broken: JobQueue = { enqueue: () => Promise.reject(new Error('redis down')), close: async () => undefined };
      const throwing: JobQueue = { enqueue: () => { throw new Error('sync failure'); }, close: async () => undefined };
      const event: PushEvent = { event: 'chat_started', key: 'chat_started:x:0', companyId: 1, chatbotId: 1, conversationId: randomUUID(), assignedUserId: null, visitor: 'V', text: 't' };
      assert.doesNotThrow(() => raisePushEvent({ ...base, config: { ...base.config, vapid: VAPID }, jobs: broken }, event));
      assert.doesNotThrow(() => raisePushEvent({ ...base, config: { ...base.config, vapid: VAPID }, jobs: throwing }, event));
      await new Promise((resolve) => setImmediate(resolve));
    });
  });

  describe('the push-service stand-in itself', () => {
    /** Sends prepared web-push request details, optionally altered, and answers the status. */
    function post(details: ReturnType<typeof generateRequestDetails>, alter: { authorization?: string; body?: Buffer } = {}): Promise<number> {
      return new Promise((resolve, reject) => {
        const headers = { ...details.headers, ...(alter.authorization && { Authorization: alter.authorization }) };
        const request = httpsRequest(details.endpoint, { method: details.method, headers, agent: fake.agent }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end(alter.body ?? details.body);
      });
    }

    it('accepts only a good VAPID signature for its own origin from the announced key, and a body that decrypts', async () => {
      const subscription = fake.subscribe();
      const details = generateRequestDetails(subscription, '{"x":1}', { vapidDetails: VAPID, TTL: 60 });
      const other = generateVAPIDKeys();
      const otherKey = generateRequestDetails(subscription, '{"x":1}', { vapidDetails: { subject: VAPID.subject, ...other }, TTL: 60 });
      const elsewhere = getVapidHeaders('https://push.elsewhere.test', VAPID.subject, VAPID.publicKey, VAPID.privateKey, 'aes128gcm');
      const body = Buffer.from(details.body as Buffer);
      body[body.length - 5]! ^= 0xff;

      assert.equal(await post(otherKey), 403);
      assert.equal(await post(details, { authorization: elsewhere.Authorization }), 403);
      assert.equal(await post(details, { body }), 400);
      assert.equal(fake.rejected().length, 3);
      assert.match(fake.rejected()[0]!.error!, /signed with another key/);
      assert.match(fake.rejected()[1]!.error!, /aud https:\/\/push\.elsewhere\.test is not/);
      assert.match(fake.rejected()[2]!.error!, /unable to authenticate|Unsupported state/);
      fake.clearLog();

      assert.equal(await post(details), 201);
      assert.deepEqual(fake.delivered(subscription).map((push) => push.payload), [{ x: 1 }]);
      await sendNotification(subscription, '{"y":2}', { vapidDetails: VAPID, agent: fake.agent, TTL: 60 });
      assert.deepEqual(fake.delivered(subscription).map((push) => push.payload), [{ x: 1 }, { y: 2 }]);
    });
  });
});
