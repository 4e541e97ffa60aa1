import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page, Worker } from 'playwright-core';
import { generateVAPIDKeys } from 'web-push';
import { launchBrowser } from '../support/browser';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { startFakePushService, type FakePushService, type FakeSubscription } from '../support/fakePushService';
import { signInInbox } from '../support/inboxPage';
import { cliOk } from '../support/processes';
import { postStream } from '../support/sse';

const VAPID = { ...generateVAPIDKeys(), subject: 'mailto:ops@fjord.test' };
const PASSWORD = 'password-123';

/**
 * Headless Chromium cannot subscribe at a real push service (its push goes through Google's servers),
 * so the page's PushManager hands out a subscription at the local stand-in instead; everything else is
 * real: the inbox saves it through the agent API, a single-node Parley with VAPID keys encrypts and
 * sends each notification there, the stand-in verifies and decrypts it, and the decrypted payload is
 * delivered to the inbox's service worker as a real push message (DevTools protocol,
 * ServiceWorker.deliverPushMessage). A notification click is a NotificationEvent dispatched in the
 * worker: nobody can click an OS notification in a headless browser.
 */
function pushManagerStandIn(device: FakeSubscription): string {
  return `(() => {
    const device = ${JSON.stringify(device)};
    let current = null;
    window.__push = [];
    PushManager.prototype.subscribe = async function (options) {
      window.__push.push('subscribe:' + typeof options.applicationServerKey);
      current = { endpoint: device.endpoint, toJSON: () => ({ endpoint: device.endpoint, expirationTime: null, keys: device.keys }),
        unsubscribe: async () => { window.__push.push('unsubscribe'); current = null; return true; } };
      return current;
    };
    PushManager.prototype.getSubscription = async function () { return current; };
    // The inbox's chime: counted, so a test can tell it played.
    const oscillator = AudioContext.prototype.createOscillator;
    window.__chimes = 0;
    AudioContext.prototype.createOscillator = function () { window.__chimes++; return oscillator.call(this); };
    // What the page itself showed, once the browser accepted it. The worker's getNotifications() is
    // not the witness here: Chromium can drop a notification it has just shown from that list
    // (seen once in ~40 runs, its showNotification resolved), so reading it back made the test flaky.
    const show = ServiceWorkerRegistration.prototype.showNotification;
    window.__shown = [];
    ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
      return show.call(this, title, options).then(() => void window.__shown.push({ title, body: options.body, tag: options.tag }));
    };
  })()`;
}

describe('web inbox notifications in real Chromium (service worker, push stand-in, settings)', function () {
  this.timeout(90_000);
  let fake: FakePushService;
  let deployment: Deployment;
  let node: ClusterNode;
  let browser: Browser;
  let key: string;
  let botId: number;
  let email: string;
  const errors: string[] = [];

  before(async () => {
    fake = await startFakePushService();
    fake.expectVapidKey(VAPID.publicKey);
    deployment = await Deployment.create({ singleNode: true });
    const env = { VAPID_PUBLIC_KEY: VAPID.publicKey, VAPID_PRIVATE_KEY: VAPID.privateKey, VAPID_SUBJECT: VAPID.subject, NODE_EXTRA_CA_CERTS: fake.caFile };
    [node, browser] = await Promise.all([deployment.start('inbox-push', env), launchBrowser()]);
    email = `ana-${randomBytes(3).toString('hex')}@fjord.test`;
    const created = await cliOk(['workspace', 'create', '--name', 'Fjord', '--owner-email', email, '--owner-password', PASSWORD, '--owner-name', 'Ana Owner'], deployment.env());
    const companyId = (created.company as { id: number }).id;
    const bot = (await cliOk(['chatbot', 'create', '--company', String(companyId), '--name', 'Fjord Bot'], deployment.env())).chatbot as { id: number; public_key: string };
    [key, botId] = [bot.public_key, bot.id];
  });
  after(async () => {
    await browser?.close();
    await deployment?.destroy();
    await fake?.close();
  });
  beforeEach(() => (errors.length = 0));
  afterEach(() => assert.deepEqual(errors, [], 'no script errors in any page'));

  /** `allowed`: notifications were allowed before (the inbox then subscribes at sign-in by itself). */
  async function inboxWithDevice(device: FakeSubscription, allowed = true): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    if (allowed) await context.grantPermissions(['notifications'], { origin: node.url });
    await context.addInitScript(pushManagerStandIn(device));
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await signInInbox(page, `${node.url}/inbox`, email, PASSWORD);
    // Not waitForFunction: it takes the expression's Promise as a truthy answer and waits for nothing.
    const active = () => page.evaluate(`navigator.serviceWorker.getRegistration('${node.url}/inbox/').then((reg) => !!reg?.active)`) as Promise<boolean>;
    assert.equal(await eventually(active, Boolean, 15_000), true, 'the inbox’s service worker is active');
    return { context, page };
  }

  async function serviceWorker(context: BrowserContext): Promise<Worker> {
    return context.serviceWorkers()[0] ?? context.waitForEvent('serviceworker');
  }

  const notifications = (worker: Worker) =>
    worker.evaluate('self.registration.getNotifications().then((all) => all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))') as Promise<
      Array<{ title: string; body: string; tag: string; data: { conversation_id?: string } }>
    >;

  /** A visitor who starts a chat and asks for a person: every handler hears of it. */
  async function visitorWaiting(visitor: string): Promise<string> {
    const started = await postStream(`/widget/${key}/stream`, { visitor_id: visitor, message: 'Is my parcel lost?' }, {}, node.url);
    const conversation = started.events.find((event) => event.event === 'meta')!.data.conversation_id as string;
    const handoff = await fetch(`${node.url}/widget/${key}/handoff`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ visitor_id: visitor, conversation_id: conversation }) });
    assert.equal(handoff.status, 200);
    return conversation;
  }

  const savedDevices = async (device: FakeSubscription) => (await deployment.query('SELECT id FROM push_subscriptions WHERE endpoint = $1', [device.endpoint])).length;

  it('subscribes through the service worker, shows a push, opens its conversation on click, and unsubscribes on sign-out', async () => {
    const device = fake.subscribe();
    const { context, page } = await inboxWithDevice(device, false);
    await page.getByRole('button', { name: 'Notifications' }).click();
    await page.locator('#push-state[data-state="off"]').waitFor();
    await context.grantPermissions(['notifications'], { origin: node.url }); // the agent says yes to the browser's question
    await page.getByRole('button', { name: 'Turn on for this device' }).click();
    await page.locator('#push-state[data-state="on"]').waitFor();
    assert.deepEqual(await page.evaluate('window.__push'), ['subscribe:string'], 'subscribed with the server’s VAPID key');
    assert.equal(await savedDevices(device), 1, 'saved through POST /api/agent/push/subscriptions');
    await page.getByRole('button', { name: 'Close' }).click();

    const conversation = await visitorWaiting(`visitor-${randomBytes(4).toString('hex')}`);
    const pushed = await eventually(() => fake.delivered(device).find((push) => push.payload?.event === 'handoff_requested'), Boolean, 15_000);
    assert.ok(pushed, 'the push service received the handoff, VAPID-signed and decryptable');
    assert.equal(pushed.payload!.conversation_id, conversation);

    // The decrypted payload reaches the service worker as a real push message.
    const worker = await serviceWorker(context);
    const cdp = await context.newCDPSession(page);
    const registrations = new Promise<string>((resolve) =>
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: list }) => {
        const found = list.find((r) => r.scopeURL === `${node.url}/inbox/` && !r.isDeleted);
        if (found) resolve(found.registrationId);
      }),
    );
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: node.url, registrationId: await registrations, data: JSON.stringify(pushed.payload) });
    const shown = await eventually(() => notifications(worker), (list) => list.some((n) => n.tag === `parley-${conversation}`));
    const notification = shown.find((n) => n.tag === `parley-${conversation}`)!;
    assert.deepEqual([notification.title, notification.body], [pushed.payload!.title, pushed.payload!.body]);

    // The open inbox (on the list, no thread open) is brought to the conversation.
    assert.equal(new URL(page.url()).pathname, '/inbox');
    await worker.evaluate(
      `self.registration.getNotifications({ tag: 'parley-${conversation}' }).then(([n]) => self.dispatchEvent(new NotificationEvent('notificationclick', { notification: n })))`,
    );
    await page.waitForURL(`**/inbox/conversations/${conversation}`);
    await page.locator('#messages li[data-role="visitor"]').filter({ hasText: 'Is my parcel lost?' }).waitFor();
    assert.deepEqual(await eventually(() => notifications(worker), (list) => !list.some((n) => n.tag === `parley-${conversation}`)), [], 'the clicked notification is closed');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(await page.evaluate('window.__push'), ['subscribe:string', 'unsubscribe']);
    assert.equal(await savedDevices(device), 0, 'removed with DELETE /api/agent/push/subscriptions before the token went');
    await context.close();
  });

  it('plays a sound and shows a desktop notification for a new visitor message while the tab is hidden', async () => {
    const device = fake.subscribe();
    const { context, page } = await inboxWithDevice(device);
    assert.equal(await eventually(() => savedDevices(device), (n) => n === 1), 1, 'allowed before: subscribed again at sign-in');
    const visitor = `visitor-${randomBytes(4).toString('hex')}`;
    const conversation = await visitorWaiting(visitor);
    await page.locator(`#list li[data-id="${conversation}"]`).waitFor({ timeout: 10_000 });
    // Headless tabs are always visible: the page is told it is hidden, as when the agent switches tabs.
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { get: () => 'hidden', configurable: true })`);
    const chimesBefore = (await page.evaluate('window.__chimes')) as number;
    await postStream(`/widget/${key}/stream`, { visitor_id: visitor, conversation_id: conversation, message: 'Hello? Anyone?' }, {}, node.url);
    const shownByPage = () => page.evaluate('window.__shown') as Promise<Array<{ title: string; body: string; tag: string }>>;
    const shown = await eventually(shownByPage, (list) => list.some((n) => n.body === 'Hello? Anyone?'));
    assert.ok(shown.some((n) => n.body === 'Hello? Anyone?' && n.tag === `parley-${conversation}` && /New message from/.test(n.title)), JSON.stringify(shown));
    assert.ok(((await page.evaluate('window.__chimes')) as number) > chimesBefore, 'a sound played');
    await context.close();
  });

  it('has a settings screen for every notification preference', async () => {
    const { context, page } = await inboxWithDevice(fake.subscribe());
    await page.getByRole('button', { name: 'Notifications' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notification settings' });
    await dialog.locator('#push-state').waitFor();
    await dialog.getByLabel('Push notifications (all devices)').uncheck();
    await dialog.getByLabel('Sound', { exact: true }).uncheck();
    await dialog.getByLabel('Vibrate (phones)').uncheck();
    await dialog.getByLabel('Email').check();
    await dialog.getByRole('textbox', { name: 'Sound pack' }).fill('soft');
    await dialog.getByLabel('Volume').fill('40');
    await dialog.getByRole('checkbox', { name: 'A visitor arrives on the site' }).uncheck();
    await dialog.getByLabel('Sound for: A chat starts').fill('bell');
    await dialog.getByLabel('Quiet hours from').fill('22:00');
    await dialog.getByLabel('to', { exact: true }).fill('06:30');
    await dialog.getByLabel('Time zone').selectOption('Europe/Oslo');
    await dialog.getByLabel(/Do not disturb for/).fill('30');
    await dialog.getByLabel(/Only chatbots/).fill(`${botId}, 999999`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('#toast').filter({ hasText: 'Notification settings saved.' }).waitFor();

    const token = (await page.evaluate(`localStorage.getItem('parley.agent.token')`)) as string;
    const saved = (await (await fetch(`${node.url}/api/agent/notifications`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { preferences: Record<string, any> };
    const p = saved.preferences;
    assert.deepEqual(
      [p.push_enabled, p.sound_enabled, p.vibrate_enabled, p.email_enabled, p.sound_pack, p.volume, p.quiet_hours_start, p.quiet_hours_end, p.quiet_hours_tz, p.dnd_minutes],
      [false, false, false, true, 'soft', 40, '22:00', '06:30', 'Europe/Oslo', 30],
    );
    assert.deepEqual(p.chatbot_filter, [botId], 'ids outside the workspace are dropped by the server');
    assert.deepEqual([p.events.visitor_arrived, p.events.chat_started, p.events.handoff_requested], [{ push: false, sound: null }, { push: true, sound: 'bell' }, { push: true, sound: null }]);
    assert.equal(await dialog.getByLabel(/Do not disturb for/).inputValue(), '30', 'the screen shows what was saved');
    await context.close();
  });
});
