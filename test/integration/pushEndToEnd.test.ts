import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { generateVAPIDKeys } from 'web-push';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { startFakePushService, type FakePushService, type FakeSubscription, type PushRequest } from '../support/fakePushService';
import { ROOT, Running, stopProcess } from '../support/processes';
import { postStream } from '../support/sse';

const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:ops@fjord.test' };
const APP_URL = 'https://parley.fjord.test';

type Name = 'owner' | 'ana' | 'ben' | 'viewer' | 'suspended' | 'outsider';
const HANDLERS: Name[] = ['ana', 'ben', 'owner'];

/**
 * The whole path in real processes: a visitor's widget calls reach a web node with VAPID keys, its
 * actors raise events, push jobs go through BullMQ to a worker process, and web-push delivers them
 * over HTTPS (the worker trusts the stand-in's certificate through NODE_EXTRA_CA_CERTS) to a push
 * service that verifies the VAPID JWT and decrypts each notification. Its own deployment (database and
 * Redis prefix): the suite's shared server has no VAPID keys, and the web node must own every actor.
 */
describe('web push end to end (web node + worker, cluster mode)', function () {
  this.timeout(120_000);
  let fake: FakePushService;
  let deployment: Deployment;
  let web: ClusterNode;
  let worker: Running;
  let bot: { key: string; companyId: number };
  const devices = {} as Record<Name, FakeSubscription>;

  before(async () => {
    fake = await startFakePushService();
    fake.expectVapidKey(VAPID.publicKey);
    deployment = await Deployment.create();
    const env = {
      VAPID_PUBLIC_KEY: VAPID.publicKey,
      VAPID_PRIVATE_KEY: VAPID.privateKey,
      VAPID_SUBJECT: VAPID.subject,
      NODE_EXTRA_CA_CERTS: fake.caFile,
      APP_URL,
    };
    [web, worker] = await Promise.all([
      deployment.start('push-web', env),
      (async () => {
        const process = new Running(resolve(ROOT, 'dist/workers/index.js'), [], { env: deployment.env({ ...env, NODE_ID: 'push-worker' }) });
        await process.waitForLog((entry) => entry.msg === 'worker ready' && entry.push === 'configured', 30_000);
        return process;
      })(),
    ]);
    await seed();
  });
  after(async () => {
    await stopProcess(worker);
    await deployment?.destroy();
    await fake?.close();
  });

  /** A workspace with a 2-second first-response target, a chatbot showing live visitors, every kind of user with a device. */
  async function seed(): Promise<void> {
    const tag = randomBytes(4).toString('hex');
    const company = async (name: string, target: number) =>
      (await deployment.query<{ id: number }>('INSERT INTO companies (name, slug, plan, first_response_target_seconds) VALUES ($1, $2, $3, $4) RETURNING id', [name, `${name.toLowerCase()}-${tag}`, 'pro', target]))[0]!.id;
    const fjord = await company('Fjord', 2);
    const other = await company('Other', 300);
    const key = `pk_push_${tag}`;
    await deployment.query(
      `INSERT INTO chatbots (company_id, public_key, name, provider, model, welcome_message, identity_secret_encrypted, branding)
       VALUES ($1, $2, 'Fjord Bot', 'openai', 'gpt-4o-mini', 'Hi', 'sealed', '{"live_visitors": true}')`,
      [fjord, key],
    );
    bot = { key, companyId: fjord };
    const people: Array<[Name, number, string, boolean]> = [
      ['owner', fjord, 'owner', false],
      ['ana', fjord, 'agent', false],
      ['ben', fjord, 'admin', false],
      ['viewer', fjord, 'viewer', false],
      ['suspended', fjord, 'agent', true],
      ['outsider', other, 'agent', false],
    ];
    for (const [name, companyId, role, suspended] of people) {
      const [user] = await deployment.query<{ id: number }>(
        `INSERT INTO users (company_id, name, email, password_hash, role, suspended_at) VALUES ($1, $2, $3, 'x', $4, $5) RETURNING id`,
        [companyId, name, `${name}-${tag}@fjord.test`, role, suspended ? new Date() : null],
      );
      devices[name] = fake.subscribe();
      await deployment.query('INSERT INTO push_subscriptions (company_id, user_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4, $5)', [
        companyId,
        user!.id,
        devices[name].endpoint,
        devices[name].keys.p256dh,
        devices[name].keys.auth,
      ]);
    }
  }

  const widget = (path: string, body: unknown) =>
    fetch(`${web.url}/widget/${bot.key}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const say = async (visitor: string, message: string, conversation?: string): Promise<string> => {
    const reply = await postStream(`/widget/${bot.key}/stream`, { visitor_id: visitor, message, ...(conversation && { conversation_id: conversation }) }, {}, web.url);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.events.find((event) => event.event === 'meta')!.data.conversation_id as string;
  };
  const eventsAt = (name: Name): string[] => fake.delivered(devices[name]).map((push) => push.payload!.event as string);
  const only = (name: Name, event: string): PushRequest => {
    const pushes = fake.delivered(devices[name]).filter((push) => push.payload!.event === event);
    assert.equal(pushes.length, 1, `${name}: ${event} ${pushes.length} times`);
    return pushes[0]!;
  };

  it('a visitor arrives, chats, asks for a person, keeps writing and waits past the target: each agent hears each event once', async () => {
    const visitor = `visitor-${randomBytes(4).toString('hex')}`;
    assert.equal((await widget('/heartbeat', { visitor_id: visitor, url: 'https://fjord.test/sale', title: 'Spring sale' })).status, 200);
    await eventually(() => HANDLERS.every((name) => eventsAt(name).includes('visitor_arrived')), Boolean, 15_000);

    const conversation = await say(visitor, 'Do you ship to Norway?');
    await eventually(() => HANDLERS.every((name) => eventsAt(name).includes('chat_started')), Boolean, 15_000);

    const handoff = await widget('/handoff', { visitor_id: visitor, conversation_id: conversation });
    assert.equal(handoff.status, 200);
    await say(visitor, 'Hello? Anyone there?', conversation);
    await say(visitor, 'I need this for Friday', conversation); // within the window: no second push
    const all = ['chat_started', 'handoff_requested', 'sla_breach', 'visitor_arrived', 'visitor_message'];
    await eventually(() => HANDLERS.every((name) => all.every((event) => eventsAt(name).includes(event))), Boolean, 30_000);
    await new Promise((wake) => setTimeout(wake, 1_500)); // anything extra would show up now

    for (const name of HANDLERS) assert.deepEqual([...eventsAt(name)].sort(), all, name);
    for (const name of ['viewer', 'suspended', 'outsider'] as const) assert.deepEqual(fake.requests(devices[name]), [], name);
    assert.deepEqual(fake.rejected(), []);

    assert.deepEqual(only('ana', 'handoff_requested').payload, {
      event: 'handoff_requested',
      title: 'Visitor ' + visitor.replace(/[^a-z0-9]/gi, '').slice(-6).toUpperCase() + ' is waiting for a person',
      body: 'Visitor ' + visitor.replace(/[^a-z0-9]/gi, '').slice(-6).toUpperCase() + ' asked to talk to a person.',
      url: `${APP_URL}/inbox/conversations/${conversation}`,
      conversation_id: conversation,
      tag: `parley-${conversation}`,
      sound: null,
      sound_pack: 'default',
      sound_enabled: true,
      vibrate: true,
      volume: 80,
    });
    assert.equal(only('ana', 'handoff_requested').urgency, 'high');
    // Fan-out jobs run concurrently, so either message may take the window's one push; never both.
    assert.ok(['Hello? Anyone there?', 'I need this for Friday'].includes(only('ben', 'visitor_message').payload!.body as string));
    assert.equal(only('owner', 'chat_started').payload!.body, 'Do you ship to Norway?');
    assert.equal(only('owner', 'visitor_arrived').payload!.body, 'Spring sale');
    assert.equal(only('owner', 'visitor_arrived').urgency, 'low');
    assert.match(String(only('ben', 'sla_breach').payload!.title), / is still waiting$/);
    const [breach] = await deployment.query<{ sla_breached: boolean }>('SELECT sla_breached_at IS NOT NULL AS sla_breached FROM conversations WHERE public_id = $1', [conversation]);
    assert.deepEqual(breach, { sla_breached: true });
  });

  it('a device the push service reports gone (410) is removed by the worker', async () => {
    fake.script(devices.ana, { status: 410 });
    const visitor = `visitor-${randomBytes(4).toString('hex')}`;
    const before = fake.requests(devices.ana).length;
    await say(visitor, 'Quick question');
    await eventually(() => fake.requests(devices.ana).length, (count) => count > before, 15_000);
    const rows = await eventually(
      () => deployment.query('SELECT id FROM push_subscriptions WHERE endpoint = $1', [devices.ana.endpoint]),
      (found) => found.length === 0,
      10_000,
    );
    assert.deepEqual(rows, []);
    assert.equal(fake.requests(devices.ana).at(-1)!.status, 410);
  });
});

/** Single-node mode (no REDIS_URL, its own database): the web process fans out and delivers itself, throttling in memory. */
describe('web push end to end (single node)', function () {
  this.timeout(120_000);
  let fake: FakePushService;
  let deployment: Deployment;
  let node: ClusterNode;

  before(async () => {
    fake = await startFakePushService();
    fake.expectVapidKey(VAPID.publicKey);
    deployment = await Deployment.create({ singleNode: true });
    node = await deployment.start('push-single', {
      VAPID_PUBLIC_KEY: VAPID.publicKey,
      VAPID_PRIVATE_KEY: VAPID.privateKey,
      VAPID_SUBJECT: VAPID.subject,
      NODE_EXTRA_CA_CERTS: fake.caFile,
      APP_URL,
    });
  });
  after(async () => {
    await deployment?.destroy();
    await fake?.close();
  });

  it('a handoff request and the messages after it reach the agent, the second message throttled', async () => {
    const [company] = await deployment.query<{ id: number }>("INSERT INTO companies (name, slug, plan) VALUES ('Solo', 'solo', 'pro') RETURNING id");
    await deployment.query(
      `INSERT INTO chatbots (company_id, public_key, name, provider, model, welcome_message, identity_secret_encrypted)
       VALUES ($1, 'pk_solo', 'Solo Bot', 'openai', 'gpt-4o-mini', 'Hi', 'sealed')`,
      [company!.id],
    );
    const [agent] = await deployment.query<{ id: number }>("INSERT INTO users (company_id, name, email, password_hash, role) VALUES ($1, 'Ana', 'ana@solo.test', 'x', 'agent') RETURNING id", [company!.id]);
    const device = fake.subscribe();
    await deployment.query('INSERT INTO push_subscriptions (company_id, user_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4, $5)', [company!.id, agent!.id, device.endpoint, device.keys.p256dh, device.keys.auth]);

    const say = async (message: string, conversation?: string) =>
      (await postStream('/widget/pk_solo/stream', { visitor_id: 'solo-visitor', message, ...(conversation && { conversation_id: conversation }) }, {}, node.url)).events.find((event) => event.event === 'meta')!.data
        .conversation_id as string;
    const conversation = await say('Hi there');
    const handoff = await fetch(`${node.url}/widget/pk_solo/handoff`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ visitor_id: 'solo-visitor', conversation_id: conversation }) });
    assert.equal(handoff.status, 200);
    await say('Still there?', conversation);
    await say('Hello??', conversation);
    const events = () => fake.delivered(device).map((push) => push.payload!.event);
    await eventually(events, (seen) => seen.includes('visitor_message') && seen.includes('handoff_requested') && seen.includes('chat_started'), 15_000);
    await new Promise((wake) => setTimeout(wake, 1_000));
    assert.deepEqual(events().sort(), ['chat_started', 'handoff_requested', 'visitor_message']);
    assert.equal(fake.delivered(device).find((push) => push.payload!.event === 'visitor_message')!.payload!.body, 'Still there?');
    assert.deepEqual(fake.rejected(), []);
  });
});
