import { api, get, post, ROOT } from './api.js';

// Web push on this device: the service worker (/inbox/sw.js) and its subscription, saved with the
// agent API (docs/push.md). Every step is best effort: without push the inbox works as before.

const WORKER = new URL('sw.js', ROOT);
const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** The worker's registration once it is registered; null where the browser has no service workers. */
let registration: Promise<ServiceWorkerRegistration | null> = Promise.resolve(null);

/** Registers the worker and hears its clicks: a notification clicked while the inbox is open opens that conversation here. */
export function setUpPush(open: (conversationId: string) => void): void {
  if (!supported()) return;
  registration = navigator.serviceWorker.register(WORKER.href, { scope: ROOT.pathname }).catch(() => null);
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<{ type?: string; conversation_id?: string | null }>) => {
    if (event.data?.type === 'parley.open' && event.data.conversation_id) open(event.data.conversation_id);
  });
}

export type PushState = 'unsupported' | 'not_configured' | 'denied' | 'off' | 'on';

/**
 * The registration once its worker is active (subscribing needs one). Not `serviceWorker.ready`:
 * the app's own address `/inbox` lies outside the scope `/inbox/`, and `ready` waits for a worker
 * controlling this very page.
 */
async function active(): Promise<ServiceWorkerRegistration | null> {
  const reg = await registration;
  const pending = reg?.installing ?? reg?.waiting;
  if (reg && !reg.active && pending) await new Promise<void>((done) => pending.addEventListener('statechange', () => pending.state === 'activated' && done()));
  return reg;
}

async function current(): Promise<PushSubscription | null> {
  const reg = await active();
  return reg ? reg.pushManager.getSubscription() : null;
}

/** Where push stands on this device, for the settings screen. */
export async function pushState(): Promise<PushState> {
  if (!supported()) return 'unsupported';
  const vapid = await get<{ configured: boolean }>('push/vapid').catch(() => ({ configured: false }));
  if (!vapid.configured) return 'not_configured';
  if (Notification.permission === 'denied') return 'denied';
  return Notification.permission === 'granted' && (await current()) ? 'on' : 'off';
}

/**
 * Subscribes this device (asking for permission when `ask`, which needs the agent's click) and saves
 * the subscription; also at every start once permission was given, so the server always has it.
 */
export async function enablePush(ask: boolean): Promise<PushState> {
  if (!supported()) return 'unsupported';
  const vapid = await get<{ configured: boolean; public_key: string | null }>('push/vapid');
  if (!vapid.configured || !vapid.public_key) return 'not_configured';
  const permission = ask ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') return permission === 'denied' ? 'denied' : 'off';
  const reg = await active();
  if (!reg) return 'unsupported';
  const subscription = (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: vapid.public_key }));
  const { endpoint, keys } = subscription.toJSON();
  await post('push/subscriptions', { endpoint, keys, device_name: 'Web inbox' });
  return 'on';
}

/**
 * This device stops receiving (sign-out, or the agent switched it off): forgotten by the server
 * first, while the token still works (`tellServer` false when it no longer does: the push service
 * then answers 410 for it and the server drops the record itself).
 */
export async function disablePush(tellServer = true): Promise<void> {
  const subscription = await current().catch(() => null);
  if (!subscription) return;
  if (tellServer) await api('DELETE', 'push/subscriptions', { endpoint: subscription.endpoint }).catch(() => undefined);
  await subscription.unsubscribe().catch(() => false);
}

/** A desktop notification shown by the page itself (the tab is open but hidden), through the worker when there is one. */
export async function showLocal(title: string, options: NotificationOptions): Promise<void> {
  if (!supported() || Notification.permission !== 'granted') return;
  const reg = await active();
  if (reg) await reg.showNotification(title, options);
  else new Notification(title, options);
}
