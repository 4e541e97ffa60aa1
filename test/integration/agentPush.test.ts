import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { NotificationPreference, PushSubscription } from '../../src/models';
import { AGENT_BASE, agentSurface } from '../../src/surfaces/agent';
import { agentTenant } from '../support/agent';
import { server } from '../support/hooks';
import { get, request } from '../support/http';
import { serveMiniApp } from '../support/miniApp';
import * as make from '../support/factories';

const VAPID = {
  publicKey: 'BKX_b7nQkjC5r7Ogn6cxSiRwz_xfkOLRzoo_-9v3v0SWcIH8wf2HAPTUZWUwG--a9SzXEmuwv05kcKZlSr9T0tQ',
  privateKey: 'not-used-by-these-routes',
  subject: 'mailto:ops@parley.test',
};

const endpoint = () => `https://push.example.test/send/${randomBytes(8).toString('hex')}`;
const keys = () => ({ p256dh: `p256dh-${randomBytes(6).toString('hex')}`, auth: `auth-${randomBytes(4).toString('hex')}` });

const DEFAULT_EVENTS = {
  visitor_arrived: { push: true, sound: null },
  chat_started: { push: true, sound: null },
  visitor_message: { push: true, sound: null },
  handoff_requested: { push: true, sound: null },
  sla_breach: { push: true, sound: null },
  conversation_assigned: { push: true, sound: null },
};

const DEFAULT_PREFERENCES = {
  push_enabled: true,
  sound_enabled: true,
  vibrate_enabled: true,
  email_enabled: false,
  events: DEFAULT_EVENTS,
  sound_pack: 'default',
  volume: 80,
  quiet_hours_start: null,
  quiet_hours_end: null,
  quiet_hours_tz: 'UTC',
  dnd_minutes: 0,
  dnd_until: null,
  chatbot_filter: [],
};

describe('agent app: push and notifications', () => {
  /**
   * The shared test server has no VAPID keys; these routes on a second server in this process, sharing
   * its database and Redis, stand for a server where push is set up.
   */
  let configured: { url: string; close(): Promise<void> };

  before(async () => {
    const ctx = server().ctx;
    configured = await serveMiniApp((app) => app.use(AGENT_BASE, agentSurface({ ctx: { ...ctx, config: { ...ctx.config, vapid: VAPID } }, actors: server().actors, watchers: server().watchers })));
  });
  after(() => configured.close());

  const subscribe = (token: string, body: unknown) => request('POST', '/api/agent/push/subscriptions', { token, body, baseUrl: configured.url });
  const unsubscribe = (token: string, body: unknown, baseUrl?: string) => request('DELETE', '/api/agent/push/subscriptions', { token, body, baseUrl });
  const patchPreferences = (token: string, body: unknown) => request('PATCH', '/api/agent/notifications', { token, body });

  describe('agent app: web push keys', () => {
    it('says push is not configured on a server without VAPID keys', async () => {
      const { token } = await agentTenant();
      const reply = await get('/api/agent/push/vapid', token);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { configured: false, public_key: null });
    });

    it('hands out the public key (never the private one) where push is set up', async () => {
      const { token } = await agentTenant();
      const reply = await request('GET', '/api/agent/push/vapid', { token, baseUrl: configured.url });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { configured: true, public_key: VAPID.publicKey });
    });
  });

  describe('agent app: push subscriptions', () => {
    it('answers 503 when push is not configured, and stores nothing', async () => {
      const { agent, token } = await agentTenant();
      const reply = await request('POST', '/api/agent/push/subscriptions', { token, body: { endpoint: endpoint(), keys: keys() } });
      assert.equal(reply.status, 503);
      assert.equal(reply.body.message, 'Push notifications are not configured on this server.');
      assert.equal(reply.body.code, 'not_configured');
      assert.equal(await PushSubscription.count({ where: { userId: agent.id } }), 0);
    });

    it('validates the body before refusing for missing configuration: an invalid one is 422 on either server', async () => {
      const { token } = await agentTenant();
      const invalid = { endpoint: 'not a url', keys: { p256dh: 'p' } };
      for (const baseUrl of [server().url, configured.url]) {
        const reply = await request('POST', '/api/agent/push/subscriptions', { token, body: invalid, baseUrl });
        assert.equal(reply.status, 422, baseUrl);
        assert.deepEqual(Object.keys(reply.body.errors).sort(), ['endpoint', 'keys.auth']);
      }
    });

    it('creates a subscription (201), then updates the same endpoint (200) instead of adding a second', async () => {
      const { company, agent, token } = await agentTenant();
      const url = endpoint();
      const first = keys();
      const created = await subscribe(token, { endpoint: url, keys: first, device_name: ' Firefox on Linux ' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id } = created.body.subscription;
      assert.ok(Number.isInteger(id));
      assert.deepEqual(created.body, { subscription: { id, endpoint: url, device_name: 'Firefox on Linux' } });
      const row = await PushSubscription.findByPk(id, { rejectOnEmpty: true });
      assert.deepEqual([row.companyId, row.userId, row.endpoint, row.p256dh, row.auth, row.deviceName], [company.id, agent.id, url, first.p256dh, first.auth, 'Firefox on Linux']);

      const second = keys();
      const updated = await subscribe(token, { endpoint: url, keys: second });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body, { subscription: { id, endpoint: url, device_name: 'Firefox on Linux' } }, 'an absent device_name keeps the saved one');
      await row.reload();
      assert.deepEqual([row.p256dh, row.auth], [second.p256dh, second.auth]);
      assert.equal(await PushSubscription.count({ where: { endpoint: url } }), 1);

      const renamed = await subscribe(token, { endpoint: url, keys: second, device_name: null });
      assert.deepEqual([renamed.status, renamed.body.subscription.device_name], [200, null], 'null clears it');
    });

    it('keeps one record per device for a user with several devices', async () => {
      const { agent, token } = await agentTenant();
      assert.equal((await subscribe(token, { endpoint: endpoint(), keys: keys() })).status, 201);
      assert.equal((await subscribe(token, { endpoint: endpoint(), keys: keys() })).status, 201);
      assert.equal(await PushSubscription.count({ where: { userId: agent.id } }), 2);
    });

    it('moves an endpoint saved by someone else, even in another workspace, to whoever subscribed last', async () => {
      const first = await agentTenant();
      const second = await agentTenant();
      const url = endpoint();
      const created = await subscribe(first.token, { endpoint: url, keys: keys(), device_name: 'Shared kiosk' });
      const moved = await subscribe(second.token, { endpoint: url, keys: keys() });
      assert.equal(moved.status, 200);
      assert.equal(moved.body.subscription.id, created.body.subscription.id);
      const row = await PushSubscription.findOne({ where: { endpoint: url }, rejectOnEmpty: true });
      assert.deepEqual([row.userId, row.companyId], [second.agent.id, second.company.id]);
      assert.equal(await PushSubscription.count({ where: { userId: first.agent.id } }), 0);
    });

    it('saves the same new endpoint from two requests at once as one record', async () => {
      const { token } = await agentTenant();
      const url = endpoint();
      const replies = await Promise.all([subscribe(token, { endpoint: url, keys: keys() }), subscribe(token, { endpoint: url, keys: keys() })]);
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, 201]);
      assert.equal(await PushSubscription.count({ where: { endpoint: url } }), 1);
    });

    it('validates the body (422 with errors per field)', async () => {
      const { agent, token } = await agentTenant();
      const cases: Array<[unknown, string]> = [
        [{ keys: keys() }, 'endpoint'],
        [{ endpoint: 'http://push.example.test/x', keys: keys() }, 'endpoint'],
        [{ endpoint: 'not a url', keys: keys() }, 'endpoint'],
        [{ endpoint: 'https://', keys: keys() }, 'endpoint'],
        [{ endpoint: `https://push.example.test/${'x'.repeat(2030)}`, keys: keys() }, 'endpoint'],
        [{ endpoint: endpoint() }, 'keys'],
        [{ endpoint: endpoint(), keys: 'p256dh' }, 'keys'],
        [{ endpoint: endpoint(), keys: { auth: 'a' } }, 'keys.p256dh'],
        [{ endpoint: endpoint(), keys: { p256dh: 'p'.repeat(256), auth: 'a' } }, 'keys.p256dh'],
        [{ endpoint: endpoint(), keys: { p256dh: 'p' } }, 'keys.auth'],
        [{ endpoint: endpoint(), keys: { p256dh: 'p', auth: 'a'.repeat(256) } }, 'keys.auth'],
        [{ endpoint: endpoint(), keys: { p256dh: 'p', auth: '  ' } }, 'keys.auth'],
        [{ endpoint: endpoint(), keys: keys(), device_name: 'd'.repeat(121) }, 'device_name'],
      ];
      for (const [body, field] of cases) {
        const reply = await subscribe(token, body);
        assert.equal(reply.status, 422, JSON.stringify(body).slice(0, 120));
        assert.ok(reply.body.errors[field], `${field}: ${JSON.stringify(reply.body)}`);
      }
      assert.equal(await PushSubscription.count({ where: { userId: agent.id } }), 0);
      const longest = { endpoint: `https://push.example.test/${'x'.repeat(2048 - 26)}`, keys: { p256dh: 'p'.repeat(255), auth: 'a'.repeat(255) }, device_name: 'd'.repeat(120) };
      assert.equal(longest.endpoint.length, 2048);
      assert.equal((await subscribe(token, longest)).status, 201, 'the limits themselves fit');
    });

    it('allows 20 saves per minute per user, then 429 with the rate-limit headers', async () => {
      const { token } = await agentTenant();
      for (let i = 0; i < 20; i++) {
        const reply = await subscribe(token, { endpoint: endpoint(), keys: keys() });
        assert.equal(reply.status, 201, `save ${i + 1}`);
        assert.equal(reply.headers.get('x-ratelimit-remaining'), String(19 - i));
      }
      const throttled = await subscribe(token, { endpoint: endpoint(), keys: keys() });
      assert.equal(throttled.status, 429);
      assert.equal(throttled.headers.get('x-ratelimit-limit'), '20');
      assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
      assert.equal((await subscribe((await agentTenant()).token, { endpoint: endpoint(), keys: keys() })).status, 201, 'another user has their own budget');
    });

    it('unsubscribes the caller\'s own device, idempotently, and never someone else\'s', async () => {
      const mine = await agentTenant();
      const theirs = await agentTenant();
      const myUrl = endpoint();
      const theirUrl = endpoint();
      await subscribe(mine.token, { endpoint: myUrl, keys: keys() });
      await subscribe(theirs.token, { endpoint: theirUrl, keys: keys() });

      const message = { message: 'This device will no longer receive push notifications.' };
      const removed = await unsubscribe(mine.token, { endpoint: myUrl }, configured.url);
      assert.deepEqual([removed.status, removed.body], [200, message]);
      assert.equal(await PushSubscription.count({ where: { endpoint: myUrl } }), 0);
      // Also on a server without VAPID keys: a device may always stop being notified.
      const again = await unsubscribe(mine.token, { endpoint: myUrl });
      assert.deepEqual([again.status, again.body], [200, message]);
      const foreign = await unsubscribe(mine.token, { endpoint: theirUrl });
      assert.deepEqual([foreign.status, foreign.body], [200, message], 'the same answer, so it tells nothing');
      assert.equal(await PushSubscription.count({ where: { endpoint: theirUrl } }), 1, 'another user\'s record stays');

      const notUrls = ['not a url', 'push.example.test/send/abc', 'javascript:alert(1)', 'http://push.example.test/send/abc'].map((endpoint) => ({ endpoint }));
      for (const body of [{}, { endpoint: '  ' }, { endpoint: 5 }, { endpoint: `https://x.test/${'x'.repeat(2048)}` }, ...notUrls]) {
        const reply = await unsubscribe(mine.token, body);
        assert.equal(reply.status, 422, JSON.stringify(body).slice(0, 60));
        assert.ok(reply.body.errors.endpoint);
      }
    });

    it('refuses missing tokens (401) and other surfaces\' tokens (403)', async () => {
      const { agent } = await agentTenant();
      const apiToken = await make.token(agent, 'api');
      const routes = [
        ['GET', '/api/agent/push/vapid'],
        ['POST', '/api/agent/push/subscriptions'],
        ['DELETE', '/api/agent/push/subscriptions'],
        ['GET', '/api/agent/notifications'],
        ['PATCH', '/api/agent/notifications'],
      ] as const;
      for (const [method, path] of routes) {
        const body = method === 'GET' ? undefined : {};
        assert.equal((await request(method, path, { body })).status, 401, `${method} ${path}`);
        assert.equal((await request(method, path, { body, token: apiToken })).status, 403, `${method} ${path}`);
      }
    });
  });

  describe('agent app: notification preferences', () => {
    it('reads every field with its default before anything was saved', async () => {
      const { agent, token } = await agentTenant();
      const reply = await get('/api/agent/notifications', token);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { preferences: DEFAULT_PREFERENCES });
      assert.equal(await NotificationPreference.count({ where: { userId: agent.id } }), 0, 'reading stores nothing');
    });

    it('changes only the fields sent, and a later update keeps the earlier ones', async () => {
      const { agent, company, token } = await agentTenant();
      const first = await patchPreferences(token, { push_enabled: false, volume: 35, sound_pack: 'chimes', email_enabled: true, vibrate_enabled: false, sound_enabled: false });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(first.body, {
        preferences: { ...DEFAULT_PREFERENCES, push_enabled: false, volume: 35, sound_pack: 'chimes', email_enabled: true, vibrate_enabled: false, sound_enabled: false },
      });
      const second = await patchPreferences(token, { push_enabled: true, quiet_hours_start: '22:30', quiet_hours_end: '07:00', quiet_hours_tz: 'Europe/Paris' });
      assert.deepEqual(second.body.preferences, {
        ...first.body.preferences,
        push_enabled: true,
        quiet_hours_start: '22:30',
        quiet_hours_end: '07:00',
        quiet_hours_tz: 'Europe/Paris',
      });
      assert.deepEqual((await get('/api/agent/notifications', token)).body, second.body);

      const row = await NotificationPreference.findByPk(agent.id, { rejectOnEmpty: true });
      assert.deepEqual(
        [row.companyId, row.pushEnabled, row.volume, row.soundPack, row.quietHoursStart, row.quietHoursEnd, row.quietHoursTz],
        [company.id, true, 35, 'chimes', '22:30', '07:00', 'Europe/Paris'],
      );
      assert.deepEqual((await patchPreferences(token, {})).body, second.body, 'an empty update changes nothing');
    });

    it('merges events per key, keeps a saved sound when none is sent, and ignores unknown keys', async () => {
      const { agent, token } = await agentTenant();
      await patchPreferences(token, { events: { chat_started: { push: false, sound: 'ding' }, sla_breach: { push: true, sound: 'siren' } } });
      const reply = await patchPreferences(token, { events: { chat_started: { push: true }, sla_breach: { push: false, sound: null }, made_up: { push: 'nonsense' } } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body.preferences.events, {
        ...DEFAULT_EVENTS,
        chat_started: { push: true, sound: 'ding' },
        sla_breach: { push: false, sound: null },
      });
      const row = await NotificationPreference.findByPk(agent.id, { rejectOnEmpty: true });
      assert.deepEqual(Object.keys(row.events).sort(), ['chat_started', 'sla_breach'], 'unknown keys are not stored');
    });

    it('clears quiet hours with null for both ends, and falls back to UTC when the zone is cleared', async () => {
      const { token } = await agentTenant();
      await patchPreferences(token, { quiet_hours_start: '12:00', quiet_hours_end: '13:00', quiet_hours_tz: 'Asia/Tokyo' });
      const cleared = await patchPreferences(token, { quiet_hours_start: null, quiet_hours_end: null, quiet_hours_tz: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.deepEqual([cleared.body.preferences.quiet_hours_start, cleared.body.preferences.quiet_hours_end, cleared.body.preferences.quiet_hours_tz], [null, null, 'UTC']);
    });

    it('starts do-not-disturb for dnd_minutes from now, and 0 cancels it', async () => {
      const { agent, token } = await agentTenant();
      const before = Date.now();
      const on = await patchPreferences(token, { dnd_minutes: 90 });
      assert.equal(on.status, 200);
      assert.equal(on.body.preferences.dnd_minutes, 90);
      assert.match(on.body.preferences.dnd_until, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      const until = new Date(on.body.preferences.dnd_until).getTime();
      assert.ok(until >= before + 90 * 60_000 - 1000 && until <= Date.now() + 90 * 60_000, on.body.preferences.dnd_until);
      const row = await NotificationPreference.findByPk(agent.id, { rejectOnEmpty: true });
      assert.ok(row.dndUntil && Math.abs(row.dndUntil.getTime() - until) < 1000);

      const later = (await get('/api/agent/notifications', token)).body.preferences;
      assert.ok(later.dnd_minutes === 90 || later.dnd_minutes === 89, String(later.dnd_minutes));
      const off = await patchPreferences(token, { dnd_minutes: 0 });
      assert.deepEqual([off.body.preferences.dnd_minutes, off.body.preferences.dnd_until], [0, null]);
      assert.equal((await row.reload()).dndUntil, null);
    });

    it('shows an expired do-not-disturb as off', async () => {
      const { agent, company, token } = await agentTenant();
      await NotificationPreference.create({ userId: agent.id, companyId: company.id, dndUntil: new Date(Date.now() - 60_000) });
      const { preferences } = (await get('/api/agent/notifications', token)).body;
      assert.deepEqual([preferences.dnd_minutes, preferences.dnd_until], [0, null]);
    });

    it('keeps only this workspace\'s chatbots in the filter; an empty result clears it', async () => {
      const { company, bot, token } = await agentTenant();
      const second = await make.chatbot(company);
      const foreign = await make.chatbot((await make.workspace()).company);
      const saved = await patchPreferences(token, { chatbot_filter: [second.id, foreign.id, bot.id, 2_000_000_000, second.id, 99_999_999_999] });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.deepEqual(saved.body.preferences.chatbot_filter, [second.id, bot.id]);
      const onlyForeign = await patchPreferences(token, { chatbot_filter: [foreign.id] });
      assert.deepEqual(onlyForeign.body.preferences.chatbot_filter, []);
      await patchPreferences(token, { chatbot_filter: [bot.id] });
      assert.deepEqual((await patchPreferences(token, { chatbot_filter: [] })).body.preferences.chatbot_filter, []);
      await patchPreferences(token, { chatbot_filter: [bot.id] });
      assert.deepEqual((await patchPreferences(token, { chatbot_filter: null })).body.preferences.chatbot_filter, []);
    });

    it('refuses a quiet-hours window with one end only, naming the missing end (422)', async () => {
      const { agent, token } = await agentTenant();
      const cases: Array<[unknown, string]> = [
        [{ quiet_hours_start: '22:00' }, 'quiet_hours_end'],
        [{ quiet_hours_end: '07:00' }, 'quiet_hours_start'],
        [{ quiet_hours_start: '22:00', quiet_hours_end: null }, 'quiet_hours_end'],
        [{ quiet_hours_start: null, quiet_hours_end: '07:00' }, 'quiet_hours_start'],
        [{ quiet_hours_start: null }, 'quiet_hours_end'],
        [{ quiet_hours_end: null }, 'quiet_hours_start'],
        [{ quiet_hours_start: '09:00', quiet_hours_end: '09:00' }, 'quiet_hours_end'],
      ];
      for (const [body, field] of cases) {
        const reply = await patchPreferences(token, body);
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.deepEqual(Object.keys(reply.body.errors), [field], JSON.stringify(reply.body));
      }
      assert.equal(await NotificationPreference.count({ where: { userId: agent.id } }), 0, 'nothing was saved');
    });

    it('validates every field (422 with errors per field) and names all problems at once', async () => {
      const { token } = await agentTenant();
      const cases: Array<[unknown, string]> = [
        [{ push_enabled: 'yes' }, 'push_enabled'],
        [{ sound_enabled: 1 }, 'sound_enabled'],
        [{ vibrate_enabled: null }, 'vibrate_enabled'],
        [{ email_enabled: 'false' }, 'email_enabled'],
        [{ events: 'all' }, 'events'],
        [{ events: { chat_started: {} } }, 'events.chat_started.push'],
        [{ events: { chat_started: { sound: 'ding' } } }, 'events.chat_started.push'],
        [{ events: { chat_started: { push: true, sound: 's'.repeat(25) } } }, 'events.chat_started.sound'],
        [{ events: { chat_started: { push: true, sound: 7 } } }, 'events.chat_started.sound'],
        [{ sound_pack: 'p'.repeat(25) }, 'sound_pack'],
        [{ sound_pack: '  ' }, 'sound_pack'],
        [{ volume: 101 }, 'volume'],
        [{ volume: -1 }, 'volume'],
        [{ volume: 50.5 }, 'volume'],
        [{ quiet_hours_start: '24:00', quiet_hours_end: '07:00' }, 'quiet_hours_start'],
        [{ quiet_hours_start: '22:00', quiet_hours_end: '7:00' }, 'quiet_hours_end'],
        [{ quiet_hours_tz: 'Mars/Olympus_Mons' }, 'quiet_hours_tz'],
        [{ quiet_hours_tz: '+02:00' }, 'quiet_hours_tz'],
        [{ quiet_hours_tz: `Europe/${'x'.repeat(60)}` }, 'quiet_hours_tz'],
        [{ dnd_minutes: 1441 }, 'dnd_minutes'],
        [{ dnd_minutes: -5 }, 'dnd_minutes'],
        [{ dnd_minutes: 2.5 }, 'dnd_minutes'],
        [{ chatbot_filter: 'all' }, 'chatbot_filter'],
        [{ chatbot_filter: ['1'] }, 'chatbot_filter'],
        [{ chatbot_filter: [1.5] }, 'chatbot_filter'],
        [{ chatbot_filter: Array(501).fill(1) }, 'chatbot_filter'],
      ];
      for (const [body, field] of cases) {
        const reply = await patchPreferences(token, body);
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.ok(reply.body.errors[field], `${field}: ${JSON.stringify(reply.body)}`);
      }
      const several = await patchPreferences(token, { volume: 101, quiet_hours_start: '22:00', dnd_minutes: 5000 });
      assert.equal(several.status, 422);
      assert.deepEqual(Object.keys(several.body.errors).sort(), ['dnd_minutes', 'quiet_hours_end', 'volume']);
      assert.deepEqual((await get('/api/agent/notifications', token)).body.preferences, DEFAULT_PREFERENCES, 'nothing was saved');
      const edges = await patchPreferences(token, { volume: 0, dnd_minutes: 1440, quiet_hours_start: '00:00', quiet_hours_end: '23:59', sound_pack: 'p'.repeat(24) });
      assert.equal(edges.status, 200, 'the limits themselves are accepted');
    });

    it('keeps each agent\'s preferences to themselves', async () => {
      const { company, token } = await agentTenant();
      const colleague = await make.user(company, 'agent');
      await patchPreferences(token, { volume: 10, push_enabled: false });
      assert.deepEqual((await get('/api/agent/notifications', await make.token(colleague, 'agent'))).body.preferences, DEFAULT_PREFERENCES);
    });

    it('merges concurrent updates from two devices instead of losing one', async () => {
      const { token } = await agentTenant();
      await Promise.all([
        patchPreferences(token, { events: { chat_started: { push: false } } }),
        patchPreferences(token, { events: { sla_breach: { push: false } } }),
        patchPreferences(token, { volume: 5 }),
      ]);
      const { preferences } = (await get('/api/agent/notifications', token)).body;
      assert.deepEqual([preferences.events.chat_started.push, preferences.events.sla_breach.push, preferences.volume], [false, false, 5]);
    });
  });
});
