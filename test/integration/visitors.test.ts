import { strict as assert } from 'node:assert';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { VisitorActor, type VisitorServices } from '../../src/actors/visitor/actor';
import { PresenceWriter } from '../../src/actors/visitor/presenceWriter';
import { visitorActorId } from '../../src/actors/visitor/protocol';
import type { ActivationEnv } from '../../src/actors/runtime/behaviour';
import type { Actors } from '../../src/actors/runtime/router';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { pollSecondsOf } from '../../src/domain/visitors/presence';
import { loadVisitor, upsertVisitors } from '../../src/domain/visitors/records';
import { Message, PageView, Visitor, type Chatbot } from '../../src/models';
import type { RealtimeEmitter } from '../../src/realtime/emitter';
import { databaseUrlOf, TEST_DATABASE, TEST_ENV } from '../support/env';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { request, type Reply } from '../support/http';
import { withClient } from '../support/pg';
import { childEnv, cliOk, ROOT, Running } from '../support/processes';
import { connect, Inbox, subscribe, type ClientSocket } from '../support/sockets';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1';
const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** Each test beats from its own address: the widget limit is per IP and the test server trusts X-Forwarded-For from loopback. */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const visitorKey = () => `visitor-${randomBytes(4).toString('hex')}`;

interface BeatOptions {
  ip?: string;
  headers?: Record<string, string>;
  baseUrl?: string;
}

function beat(key: string, body: unknown, options: BeatOptions = {}): Promise<Reply> {
  return request('POST', `/widget/${key}/heartbeat`, { body, headers: { 'X-Forwarded-For': options.ip ?? freshIp(), ...options.headers }, baseUrl: options.baseUrl });
}

async function site() {
  const { company, owner } = await make.workspace();
  return { company, owner, bot: await make.chatbot(company) };
}

const rowOf = (companyId: number, key: string) => Visitor.findOne({ where: { companyId, visitorKey: key } });
const pageViewsOf = async (visitorId: number) => (await PageView.findAll({ where: { visitorId }, order: [['id', 'ASC']] })).map((view) => view.url);

/** An agent message left for the visitor (delivered_at NULL), as the conversation actor stores it. */
const holdFor = (bot: Chatbot, conversationId: number, content: string, role: 'agent' | 'system' = 'agent') =>
  Message.create({ companyId: bot.companyId, conversationId, role, content });

describe('visitors: POST /widget/{key}/heartbeat', () => {
  const sockets: ClientSocket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it('answers {poll_seconds, conversation_id, messages} with CORS and rate-limit headers', async () => {
    const { bot } = await site();
    const reply = await beat(bot.publicKey, { visitor_id: visitorKey(), url: 'https://shop.example/' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, { poll_seconds: pollSecondsOf(server().ctx.config), conversation_id: null, messages: [] });
    assert.equal(reply.headers.get('access-control-allow-origin'), '*');
    assert.equal(reply.headers.get('x-ratelimit-limit'), '240');
    assert.equal(reply.headers.get('x-ratelimit-remaining'), '239');
  });

  it('answers a preflight with 204 and the CORS headers', async () => {
    const { bot } = await site();
    const response = await fetch(`${server().url}/widget/${bot.publicKey}/heartbeat`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /content-type/i);
  });

  it("writes a new visitor's row at once: page, title, referrer, entry page, device, browser, os, country, locale", async () => {
    const { company, bot } = await site();
    const key = visitorKey();
    const reply = await beat(
      bot.publicKey,
      { visitor_id: `  ${key}  `, url: 'https://shop.example/pricing?plan=pro', title: 'Pricing', referrer: 'https://www.google.com/' },
      { headers: { 'User-Agent': IPHONE, 'CF-IPCountry': 'de', 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.8' } },
    );
    assert.equal(reply.status, 200);
    const row = await rowOf(company.id, key); // no waiting: the first beat is written before it is answered
    assert.ok(row, 'the visitor id is trimmed and the row exists');
    assert.deepEqual(
      {
        chatbotId: row.chatbotId,
        page: row.page,
        title: row.title,
        referrer: row.referrer,
        entryPage: row.entryPage,
        device: row.device,
        browser: row.browser,
        os: row.os,
        country: row.country,
        locale: row.locale,
        userAgent: row.userAgent,
        pageViews: row.pageViews,
      },
      {
        chatbotId: bot.id,
        page: 'https://shop.example/pricing?plan=pro',
        title: 'Pricing',
        referrer: 'https://www.google.com/',
        entryPage: 'https://shop.example/pricing?plan=pro',
        device: 'mobile',
        browser: 'Safari',
        os: 'iOS',
        country: 'DE',
        locale: 'de-DE',
        userAgent: IPHONE,
        pageViews: 1,
      },
    );
    assert.ok(Math.abs(row.firstSeenAt.getTime() - Date.now()) < 10_000);
    assert.deepEqual(await pageViewsOf(row.id), ['https://shop.example/pricing?plan=pro']);
  });

  it('counts a page view per URL change, keeps the entry page and first referrer, and writes behind within about a second', async () => {
    const { company, bot } = await site();
    const key = visitorKey();
    const ip = freshIp();
    const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      beat(bot.publicKey, { visitor_id: key, ...body }, { ip, headers: { 'User-Agent': WINDOWS_CHROME, ...headers } });
    assert.equal((await send({ url: 'https://shop.example/', title: 'Home', referrer: '' })).status, 200);
    assert.equal((await send({ url: 'https://shop.example/', title: 'Home' })).status, 200); // same page: no new view
    assert.equal((await send({ url: 'https://shop.example/shoes', referrer: 'https://news.example/story' })).status, 200);
    assert.equal((await send({ url: 'https://shop.example/shoes/red', title: 'Red shoes', referrer: 'https://shop.example/shoes' }, { 'X-Country-Code': 'FR' })).status, 200);

    const row = await eventually(
      () => rowOf(company.id, key),
      (found) => found?.pageViews === 3,
    );
    assert.ok(row);
    assert.equal(row.pageViews, 3);
    assert.equal(row.page, 'https://shop.example/shoes/red');
    assert.equal(row.title, 'Red shoes');
    assert.equal(row.entryPage, 'https://shop.example/');
    assert.equal(row.referrer, 'https://news.example/story', 'the first referrer given is kept; later ones are the site itself');
    assert.equal(row.country, 'FR');
    assert.deepEqual([row.device, row.browser, row.os], ['desktop', 'Chrome', 'Windows']);
    const views = await eventually(
      () => pageViewsOf(row.id),
      (urls) => urls.length === 3,
    );
    assert.deepEqual(views, ['https://shop.example/', 'https://shop.example/shoes', 'https://shop.example/shoes/red']);
  });

  it('keeps journey state across passivation (the actor reloads what it wrote)', async function () {
    this.timeout(20_000);
    const { company, bot } = await site();
    const key = visitorKey();
    const ip = freshIp();
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/a' }, { ip });
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/b' }, { ip });
    // The test server passivates idle actors after 1.5 s: the next beat meets a freshly loaded actor.
    await new Promise((r) => setTimeout(r, 2_500));
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/b' }, { ip });
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/c' }, { ip });
    const row = await eventually(
      () => rowOf(company.id, key),
      (found) => found?.page === 'https://shop.example/c',
    );
    assert.equal(row?.pageViews, 3);
    assert.deepEqual(await eventually(() => pageViewsOf(row!.id), (urls) => urls.length === 3), [
      'https://shop.example/a',
      'https://shop.example/b',
      'https://shop.example/c',
    ]);
  });

  it('ignores unknown-country codes (XX, T1) and malformed locale headers', async () => {
    const { company, bot } = await site();
    const key = visitorKey();
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { headers: { 'CF-IPCountry': 'XX', 'X-Country-Code': 'T1', 'Accept-Language': '*' } });
    const row = await rowOf(company.id, key);
    assert.equal(row?.country, null);
    assert.equal(row?.locale, null);
  });

  it('404 for an unknown key, an inactive chatbot and a suspended workspace, before validating the body', async () => {
    const { company, bot } = await site();
    const unknown = await beat('no-such-key', { visitor_id: 'v', url: 'https://shop.example/' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'not_found');
    assert.equal(unknown.headers.get('access-control-allow-origin'), '*');

    const other = await make.chatbot(company);
    await other.update({ isActive: false });
    assert.equal((await beat(other.publicKey, { visitor_id: 'v', url: 'https://shop.example/' })).status, 404);
    assert.equal((await beat(other.publicKey, {})).status, 404, '404 before 422');

    await setWorkspaceSuspended(company, true);
    assert.equal((await beat(bot.publicKey, { visitor_id: 'v', url: 'https://shop.example/' })).status, 404);
  });

  it('422 names each invalid field', async () => {
    const { bot } = await site();
    const empty = await beat(bot.publicKey, {});
    assert.equal(empty.status, 422);
    assert.deepEqual(Object.keys(empty.body.errors).sort(), ['url', 'visitor_id']);

    const bad = await beat(bot.publicKey, {
      visitor_id: '   ',
      url: 'javascript:alert(1)',
      title: 't'.repeat(501),
      referrer: 'r'.repeat(2049),
      conversation_id: 'not-a-uuid',
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors).sort(), ['conversation_id', 'referrer', 'title', 'url', 'visitor_id']);
    assert.deepEqual(bad.body.errors.visitor_id, ['The visitor id field is required.']);
    assert.deepEqual(bad.body.errors.conversation_id, ['The conversation id field must be a valid UUID.']);

    const long = await beat(bot.publicKey, { visitor_id: 'v'.repeat(101), url: `https://shop.example/${'p'.repeat(2048)}` });
    assert.equal(long.status, 422);
    assert.deepEqual(Object.keys(long.body.errors).sort(), ['url', 'visitor_id']);
    assert.equal((await beat(bot.publicKey, { visitor_id: 'v', url: 'ftp://shop.example/' })).status, 422);
    assert.equal((await beat(bot.publicKey, { visitor_id: 'v', url: 'https://shop.example/', referrer: '', title: null })).status, 200, 'an empty referrer and a null title are fine');
  });

  it('429 on the 241st heartbeat from one IP within a minute', async function () {
    this.timeout(30_000);
    const { bot } = await site();
    const ip = freshIp();
    const key = visitorKey();
    for (let sent = 0; sent < 240; sent += 20) {
      const replies = await Promise.all(Array.from({ length: 20 }, () => beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { ip })));
      assert.deepEqual([...new Set(replies.map((r) => r.status))], [200]);
    }
    const throttled = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { ip });
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
    assert.equal(throttled.headers.get('access-control-allow-origin'), '*');
    assert.equal((await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' })).status, 200, 'another IP is not limited');
  });

  describe('held messages', () => {
    it('hands a held agent message over once, on the next heartbeat after `held`, and marks it delivered', async () => {
      const { company, bot } = await site();
      const key = visitorKey();
      const ip = freshIp();
      const first = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { ip });
      assert.deepEqual(first.body.messages, []);
      const conversation = await make.conversation(bot, { visitorKey: key, messages: [['visitor', 'Hi'], ['assistant', 'Hello!']] });
      const held = await holdFor(bot, conversation.id, 'This is Ana from support.');
      server().actors.tell('visitor', visitorActorId(company.id, key), { type: 'held', conversationId: conversation.publicId });

      const second = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { ip });
      assert.equal(second.status, 200);
      assert.equal(second.body.conversation_id, conversation.publicId);
      assert.equal(second.body.messages.length, 1);
      const [message] = second.body.messages;
      assert.deepEqual(Object.keys(message).sort(), ['at', 'content', 'id', 'role']);
      assert.deepEqual({ id: message.id, role: message.role, content: message.content }, { id: Number(held.id), role: 'agent', content: 'This is Ana from support.' });
      assert.match(message.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      assert.ok((await Message.findByPk(held.id))?.deliveredAt, 'marked delivered');

      const third = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: conversation.publicId }, { ip });
      assert.deepEqual(third.body.messages, [], 'never handed over twice');
      assert.equal(third.body.conversation_id, conversation.publicId);
    });

    it('answers the conversation the messages wait in when the widget named another one (an agent invite)', async () => {
      const { company, bot } = await site();
      const key = visitorKey();
      const ip = freshIp();
      const own = await make.conversation(bot, { visitorKey: key, status: 'closed', messages: [['visitor', 'Old chat']] });
      const opened = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: own.publicId }, { ip });
      assert.equal(opened.body.conversation_id, own.publicId, 'the named conversation is the visitor\'s, closed or not');

      const invite = await make.conversation(bot, { visitorKey: key, status: 'agent' });
      const system = await holdFor(bot, invite.id, 'Ana joined the chat.', 'system');
      const agent = await holdFor(bot, invite.id, 'Can I help you find something?');
      server().actors.tell('visitor', visitorActorId(company.id, key), { type: 'held', conversationId: invite.publicId });

      const next = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: own.publicId }, { ip });
      assert.equal(next.body.conversation_id, invite.publicId);
      assert.deepEqual(
        next.body.messages.map((m: { id: number; role: string }) => [m.id, m.role]),
        [
          [Number(system.id), 'system'],
          [Number(agent.id), 'agent'],
        ],
      );
      const after = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: own.publicId }, { ip });
      assert.deepEqual(after.body, { poll_seconds: pollSecondsOf(server().ctx.config), conversation_id: own.publicId, messages: [] });
    });

    it('delivers only agent and system messages of this visitor on this chatbot, and reads them when the widget names an unseen conversation', async () => {
      const { company, bot } = await site();
      const otherBot = await make.chatbot(company);
      const key = visitorKey();
      const ip = freshIp();
      await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' }, { ip }); // the actor is live, its flag cleared

      const mine = await make.conversation(bot, { visitorKey: key, messages: [['visitor', 'Hi'], ['assistant', 'Hello']] });
      const delivered = await Message.create({ companyId: company.id, conversationId: mine.id, role: 'agent', content: 'Seen live', deliveredAt: new Date() });
      const waiting = await holdFor(bot, mine.id, 'Held for you');
      const elsewhere = await make.conversation(otherBot, { visitorKey: key });
      await holdFor(otherBot, elsewhere.id, 'On another chatbot');
      const someoneElse = await make.conversation(bot, { visitorKey: visitorKey() });
      await holdFor(bot, someoneElse.id, 'For another visitor');

      // No `held` was told: naming a conversation this actor has not seen is what makes it look.
      const reply = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: mine.publicId.toUpperCase() }, { ip });
      assert.equal(reply.body.conversation_id, mine.publicId);
      assert.deepEqual(reply.body.messages.map((m: { id: number }) => m.id), [Number(waiting.id)]);
      assert.notEqual(Number(delivered.id), Number(waiting.id));

      // A conversation of another visitor is not this one's: ignored, the visitor's own open one answers instead.
      const foreign = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: someoneElse.publicId }, { ip });
      assert.equal(foreign.body.conversation_id, mine.publicId);
      assert.deepEqual(foreign.body.messages, []);
      const unknown = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', conversation_id: randomUUID() }, { ip });
      assert.equal(unknown.body.conversation_id, mine.publicId);
    });

    it("answers the visitor's latest open conversation on this chatbot when the widget names none", async () => {
      const { bot } = await site();
      const key = visitorKey();
      await make.conversation(bot, { visitorKey: key, status: 'closed' });
      const open = await make.conversation(bot, { visitorKey: key });
      const reply = await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/' });
      assert.equal(reply.body.conversation_id, open.publicId);
    });
  });

  it('reports presence to agents: the snapshot, and visitor.online on the company channel once per arrival', async () => {
    const { company, owner, bot } = await site();
    const token = await make.token(owner, 'agent');
    const socket = await connect(server().url, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    const channel = `private-company.${company.id}`;
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel } });
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });

    const key = visitorKey();
    const ip = freshIp();
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/', title: 'Home' }, { ip, headers: { 'User-Agent': WINDOWS_CHROME } });
    const online = await inbox.next((r) => r.name === 'visitor.online');
    assert.deepEqual(online.payload, {
      channel,
      event: 'visitor.online',
      data: { id: key, chatbot_id: bot.id, page: 'https://shop.example/', title: 'Home', online: true },
      seq: 0,
    });
    await beat(bot.publicKey, { visitor_id: key, url: 'https://shop.example/cart', title: 'Cart' }, { ip, headers: { 'User-Agent': WINDOWS_CHROME } });

    const snapshot = await server().actors.ask('visitor', visitorActorId(company.id, key), { type: 'presence' });
    assert.equal(snapshot.online, true);
    assert.deepEqual(
      { ...snapshot, firstSeen: typeof snapshot.firstSeen, lastSeen: typeof snapshot.lastSeen },
      {
        online: true,
        chatbotId: bot.id,
        page: 'https://shop.example/cart',
        title: 'Cart',
        referrer: null,
        entryPage: 'https://shop.example/',
        pageViews: 2,
        firstSeen: 'string',
        lastSeen: 'string',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        country: null,
        conversationId: null,
      },
    );
    assert.equal(inbox.received.filter((r) => r.name === 'visitor.online').length, 1, 'a second beat is not a second arrival');

    const stranger = await server().actors.ask('visitor', visitorActorId(company.id, 'never-seen'), { type: 'presence' });
    assert.deepEqual([stranger.online, stranger.page, stranger.pageViews, stranger.lastSeen], [false, null, 0, null]);
  });

  it('an actor deactivated while its visitor is online leaves a departure reminder, which a fresh actor announces once', async function () {
    this.timeout(10_000);
    const { company, bot } = await site();
    const key = visitorKey();
    const emitted: Array<{ event: string; data: unknown }> = [];
    const reminders: Array<{ message: unknown; delayMs: number }> = [];
    const sequelize = server().ctx.db.sequelize;
    const services: VisitorServices = {
      sequelize,
      realtime: { emit: (_channel, event, data) => void emitted.push({ event, data }) } satisfies RealtimeEmitter,
      actors: { tell: () => undefined } as unknown as Actors,
      writer: new PresenceWriter((visitors, views) => upsertVisitors(sequelize, visitors, views), pino({ level: 'silent' })),
      pollSeconds: 1,
      raise: () => undefined,
    };
    const env = {
      id: visitorActorId(company.id, key),
      logger: pino({ level: 'silent' }),
      remind: async (message: unknown, options: { delayMs: number }) => void reminders.push({ message, delayMs: options.delayMs }),
    } as unknown as ActivationEnv<'visitor'>;

    const first = new VisitorActor(env, services, await loadVisitor(sequelize, company.id, key));
    await first.heartbeat({ chatbotId: bot.id, companyId: company.id, visitorKey: key, trackBehavior: true, url: 'https://shop.example/' });
    await first.heartbeat({ chatbotId: bot.id, companyId: company.id, visitorKey: key, trackBehavior: true, url: 'https://shop.example/next' });
    await first.deactivate();
    assert.equal(reminders.length, 1);
    const { message, delayMs } = reminders[0]! as { message: { type: string; lastSeen: number }; delayMs: number };
    assert.equal(message.type, 'depart');
    assert.ok(delayMs > 1_000 && delayMs <= 2_000, `due two intervals after the last beat, in ${delayMs} ms`);

    const reloaded = await loadVisitor(sequelize, company.id, key);
    assert.equal(reloaded.lastSeenAt, message.lastSeen, 'deactivation flushed the last beat');
    assert.equal(reloaded.page, 'https://shop.example/next');
    const second = new VisitorActor(env, services, reloaded);
    second.depart(message.lastSeen);
    assert.deepEqual(emitted.map((e) => e.event), ['visitor.online'], 'not before it is due');
    await new Promise((r) => setTimeout(r, delayMs + 50));
    second.depart(message.lastSeen);
    second.depart(message.lastSeen);
    assert.deepEqual(emitted.map((e) => e.event), ['visitor.online', 'visitor.offline']);
    assert.deepEqual(emitted[1]!.data, { id: key, chatbot_id: bot.id, page: 'https://shop.example/next', title: null, online: false });
    await second.deactivate();
    assert.equal(reminders.length, 1, 'a visitor already gone needs no reminder');
  });
});

// Its own process and database: the poll interval is process-wide config, and a second node on the
// suite's database would bump the suite's shard fences.
describe('visitor departure on a node with VISITOR_POLL_SECONDS=1', function () {
  this.timeout(60_000);
  const database = `${TEST_DATABASE}_presence`;
  const databaseUrl = databaseUrlOf(database);
  const env = childEnv({ ...TEST_ENV, DATABASE_URL: databaseUrl, VISITOR_POLL_SECONDS: '1' }, ['REDIS_URL']);
  let node: Running | undefined;
  let baseUrl = '';
  let controlUrl = '';
  let key = '';
  let companyId = 0;
  let token = '';
  const sockets: ClientSocket[] = [];

  before(async () => {
    await withClient((client) => client.query(`CREATE DATABASE ${database}`));
    await cliOk(['migrate'], env);
    const seeded = (await cliOk(['seed', 'demo'], env)) as { workspace: { id: number }; users: Array<{ email: string; role: string }>; chatbot: { public_key: string } };
    key = seeded.chatbot.public_key;
    companyId = seeded.workspace.id;
    const owner = seeded.users.find((u) => u.role === 'owner') ?? seeded.users[0]!;
    token = String((await cliOk(['token', 'create', '--user', owner.email, '--ability', 'agent'], env)).token);
    node = new Running(resolve(ROOT, 'dist/test/support/cluster/nodeMain.js'), [], { env: { ...env, PORT: '0', LOG_LEVEL: 'info' } });
    const started = await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
    baseUrl = `http://127.0.0.1:${String(started.port)}`;
    const control = await node.waitForLog((entry) => entry.msg === 'control listening', 10_000);
    controlUrl = `http://127.0.0.1:${String(control.port)}`;
  });

  after(async () => {
    sockets.splice(0).forEach((socket) => socket.close());
    if (node?.running) {
      node.child.kill('SIGTERM');
      if (!(await node.exitWithin(15_000))) node.child.kill('SIGKILL');
    }
    await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it('announces visitor.offline two silent intervals after the last beat, and visitor.online when they return', async () => {
    const socket = await connect(baseUrl, { token });
    sockets.push(socket);
    const inbox = new Inbox(socket);
    const channel = `private-company.${companyId}`;
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel }, baseUrl });
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });
    const visitor = visitorKey();
    const ip = freshIp();
    const send = () => beat(key, { visitor_id: visitor, url: 'https://shop.example/' }, { ip, baseUrl });

    const first = await send();
    assert.equal(first.body.poll_seconds, 1);
    await inbox.next((r) => r.name === 'visitor.online');
    await new Promise((r) => setTimeout(r, 1_000));
    await send(); // still here: the departure moves to two intervals after this beat
    const lastBeat = Date.now();
    const offline = await inbox.next((r) => r.name === 'visitor.offline');
    const after = Date.now() - lastBeat;
    assert.ok(after >= 1_900 && after < 3_000, `offline ${after} ms after the last beat`);
    assert.deepEqual(offline.payload, { channel, event: 'visitor.offline', data: { id: visitor, chatbot_id: (offline.payload.data as { chatbot_id: number }).chatbot_id, page: 'https://shop.example/', title: null, online: false }, seq: 0 });
    assert.equal(inbox.received.filter((r) => r.name === 'visitor.online').length, 1);

    await send();
    await eventually(
      () => inbox.received.filter((r) => r.name === 'visitor.online').length,
      (count) => count === 2,
      3_000,
    );
    assert.equal(inbox.received.filter((r) => r.name === 'visitor.online').length, 2, 'back on the site: online again');
  });

  it("passivates a visitor's actor once they have left (two intervals after the departure), and the next beat reloads their journey intact", async () => {
    const visitorsLive = async () => ((await (await fetch(`${controlUrl}/state`)).json()) as { byKind: Record<string, number> }).byKind.visitor;
    const visitor = visitorKey();
    const ip = freshIp();
    const send = (url: string) => beat(key, { visitor_id: visitor, url, title: url.slice(-1), referrer: 'https://search.example/' }, { ip, baseUrl });
    assert.equal((await send('https://shop.example/a')).status, 200);
    assert.equal((await send('https://shop.example/b')).status, 200);
    assert.ok((await visitorsLive()) >= 1, 'the actor is live while the visitor beats');
    const row = () =>
      withClient(
        async (client) =>
          (await client.query<{ page: string; entry_page: string; referrer: string; page_views: number; first_seen_at: Date }>(
            'SELECT page, entry_page, referrer, page_views, first_seen_at FROM visitors WHERE company_id = $1 AND visitor_key = $2',
            [companyId, visitor],
          )).rows[0],
        databaseUrl,
      );
    const before = await eventually(row, (found) => found?.page === 'https://shop.example/b');
    assert.equal(await eventually(visitorsLive, (live) => live === 0, 15_000), 0, 'no visitor actor stays live after its visitor left');

    assert.equal((await send('https://shop.example/c')).status, 200);
    assert.equal(await visitorsLive(), 1, 'the beat reactivated it');
    const after = await eventually(row, (found) => found?.page === 'https://shop.example/c');
    assert.deepEqual(
      { entry: after?.entry_page, referrer: after?.referrer, views: after?.page_views, firstSeen: after?.first_seen_at.getTime() },
      { entry: 'https://shop.example/a', referrer: 'https://search.example/', views: 3, firstSeen: before?.first_seen_at.getTime() },
      'the reloaded actor went on from the journey it had written',
    );
  });
});
