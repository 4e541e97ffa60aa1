// The web inbox's service worker (served at /inbox/sw.js, scope /inbox/): it shows the web push
// notifications Parley sends (docs/push.md "Payload") and brings the inbox to the conversation when
// one is clicked. It caches nothing: the inbox needs the server anyway.
// A classic script (no import or export): service workers as modules are not in every browser yet.
const sw = self as unknown as ServiceWorkerGlobalScope;

interface Payload {
  event?: string;
  title?: string;
  body?: string;
  url?: string;
  conversation_id?: string;
  tag?: string;
  sound_enabled?: boolean;
  vibrate?: boolean;
}

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

function read(event: PushEvent): Payload {
  try {
    return (event.data?.json() as Payload | undefined) ?? {};
  } catch {
    return { body: event.data?.text() ?? '' };
  }
}

sw.addEventListener('push', (event) => {
  const payload = read(event);
  const options: NotificationOptions & { vibrate?: number[]; renotify?: boolean } = {
    body: payload.body ?? '',
    tag: payload.tag,
    icon: new URL('../brand/logo.svg', sw.registration.scope).href,
    data: { url: payload.url, conversation_id: payload.conversation_id, event: payload.event },
    silent: payload.sound_enabled === false,
  };
  if (payload.vibrate) options.vibrate = [120, 60, 120];
  // A newer notification about the same conversation replaces the older one, and says so again.
  if (payload.tag) options.renotify = true;
  event.waitUntil(sw.registration.showNotification(payload.title ?? 'Parley', options));
});

/** Where a click leads: the conversation in this inbox (whatever host the payload was written for), else the payload's address. */
function target(data: { url?: string; conversation_id?: string }): string {
  if (data.conversation_id && /^[0-9a-f-]{36}$/i.test(data.conversation_id)) return new URL(`conversations/${data.conversation_id}`, sw.registration.scope).href;
  return data.url && data.url.startsWith(sw.registration.scope) ? data.url : sw.registration.scope;
}

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = (event.notification.data ?? {}) as { url?: string; conversation_id?: string };
  const url = target(data);
  event.waitUntil(
    (async () => {
      const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
      // The app also lives at the scope without its last slash (`/inbox`, `/inbox?filter=mine`).
      const home = sw.registration.scope.replace(/\/$/, '');
      const inbox = windows.find((client) => client.url.startsWith(sw.registration.scope) || client.url === home || client.url.startsWith(`${home}?`));
      if (!inbox) {
        await sw.clients.openWindow(url);
        return;
      }
      // The open inbox moves to the conversation itself (no reload, its socket stays up).
      inbox.postMessage({ type: 'parley.open', conversation_id: data.conversation_id ?? null, url });
      await inbox.focus().catch(() => undefined);
    })(),
  );
});
