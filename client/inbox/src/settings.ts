import { api, explain, get } from './api.js';
import { announce, byId, fill, h, toast } from './dom.js';
import { disablePush, enablePush, pushState, type PushState } from './push.js';

// The notification settings screen: every preference of GET/PATCH /api/agent/notifications, and
// push on this device (docs/inbox.md "Notifications").

const EVENTS: Array<[string, string]> = [
  ['visitor_arrived', 'A visitor arrives on the site'],
  ['chat_started', 'A chat starts'],
  ['visitor_message', 'A visitor writes (while a person is awaited or holds the chat)'],
  ['handoff_requested', 'A visitor asks for a person'],
  ['sla_breach', 'A visitor waits past the first-response target'],
  ['conversation_assigned', 'The router assigns a conversation to me'],
];

interface Preferences {
  push_enabled: boolean;
  sound_enabled: boolean;
  vibrate_enabled: boolean;
  email_enabled: boolean;
  events: Record<string, { push: boolean; sound: string | null }>;
  sound_pack: string;
  volume: number;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  quiet_hours_tz: string;
  dnd_minutes: number;
  dnd_until: string | null;
  chatbot_filter: number[];
}

const PUSH_WORDS: Record<PushState, string> = {
  unsupported: 'This browser cannot receive push notifications.',
  not_configured: 'Push is not set up on this server: the operator sets VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (docs/push.md).',
  denied: 'Notifications are blocked for this site in the browser. Allow them in the site settings, then come back.',
  off: 'This device does not receive push notifications.',
  on: 'This device receives push notifications, also while the inbox is closed.',
};

const dialog = () => byId<HTMLDialogElement>('settings');
const field = <T extends HTMLElement = HTMLInputElement>(name: string) => dialog().querySelector(`[name="${name}"]`) as T;

function check(name: string, label: string, on: boolean): HTMLLabelElement {
  return h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked: on }), ` ${label}`);
}

function labelled(label: string, control: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'row' }, h('span', {}, label), control);
}

function zones(selected: string): HTMLSelectElement {
  const all = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  const list = all.includes(selected) ? all : [selected, ...all];
  return h('select', { name: 'quiet_hours_tz' }, list.map((zone) => h('option', { value: zone, selected: zone === selected }, zone)));
}

async function renderDevice(state?: PushState): Promise<void> {
  const now = state ?? (await pushState());
  const action = now === 'on' ? 'Turn off on this device' : 'Turn on for this device';
  fill(
    byId('push-device'),
    h('p', { id: 'push-state', 'data-state': now }, PUSH_WORDS[now]),
    now === 'on' || now === 'off'
      ? h('button', { type: 'button', id: 'push-toggle', onclick: () => void toggleDevice(now) }, action)
      : null,
  );
}

async function toggleDevice(now: PushState): Promise<void> {
  try {
    if (now === 'on') {
      await disablePush();
      await renderDevice('off');
    } else await renderDevice(await enablePush(true));
    announce(byId('push-state').textContent ?? '');
  } catch (error) {
    toast(explain(error), 'error');
  }
}

function render(p: Preferences): void {
  const dnd = p.dnd_until ? ` (until ${new Date(p.dnd_until).toLocaleString()})` : '';
  fill(
    byId('settings-body'),
    h('section', { id: 'push-device', 'aria-label': 'This device' }),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Everywhere'),
      check('push_enabled', 'Push notifications (all devices)', p.push_enabled),
      check('sound_enabled', 'Sound', p.sound_enabled),
      check('vibrate_enabled', 'Vibrate (phones)', p.vibrate_enabled),
      check('email_enabled', 'Email', p.email_enabled),
      labelled('Sound pack', h('input', { name: 'sound_pack', value: p.sound_pack, maxlength: 24, required: true })),
      labelled('Volume', h('input', { name: 'volume', type: 'range', min: 0, max: 100, value: p.volume })),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Events'),
      EVENTS.map(([event, label]) =>
        h(
          'div',
          { class: 'event' },
          check(`event.${event}`, label, p.events[event]?.push ?? true),
          h('label', {}, h('span', { class: 'sr-only' }, `Sound for: ${label}`), h('input', { name: `sound.${event}`, value: p.events[event]?.sound ?? '', placeholder: 'default sound', maxlength: 64 })),
        ),
      ),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Quiet'),
      labelled('Quiet hours from', h('input', { name: 'quiet_hours_start', type: 'time', value: p.quiet_hours_start ?? '' })),
      labelled('to', h('input', { name: 'quiet_hours_end', type: 'time', value: p.quiet_hours_end ?? '' })),
      labelled('Time zone', zones(p.quiet_hours_tz)),
      labelled(`Do not disturb for (minutes)${dnd}`, h('input', { name: 'dnd_minutes', type: 'number', min: 0, max: 1440, value: p.dnd_minutes })),
      labelled('Only chatbots (ids, comma-separated; empty = all)', h('input', { name: 'chatbot_filter', value: p.chatbot_filter.join(', '), inputmode: 'numeric' })),
    ),
  );
  void renderDevice();
}

function collect(): Record<string, unknown> {
  const on = (name: string) => field(name).checked;
  const text = (name: string) => field(name).value.trim();
  const start = text('quiet_hours_start');
  const end = text('quiet_hours_end');
  return {
    push_enabled: on('push_enabled'),
    sound_enabled: on('sound_enabled'),
    vibrate_enabled: on('vibrate_enabled'),
    email_enabled: on('email_enabled'),
    sound_pack: text('sound_pack'),
    volume: Number(text('volume')),
    events: Object.fromEntries(EVENTS.map(([event]) => [event, { push: on(`event.${event}`), sound: text(`sound.${event}`) || null }])),
    // Both ends or neither: an empty one switches quiet hours off.
    quiet_hours_start: start && end ? start : null,
    quiet_hours_end: start && end ? end : null,
    quiet_hours_tz: field<HTMLSelectElement>('quiet_hours_tz').value,
    dnd_minutes: Number(text('dnd_minutes') || 0),
    chatbot_filter: text('chatbot_filter').split(/[\s,]+/).filter(Boolean).map(Number),
  };
}

async function save(event: Event): Promise<void> {
  event.preventDefault();
  try {
    const { preferences } = await api<{ preferences: Preferences }>('PATCH', 'notifications', collect());
    render(preferences);
    toast('Notification settings saved.');
  } catch (error) {
    toast(explain(error), 'error');
  }
}

export async function openSettings(): Promise<void> {
  fill(byId('settings-body'), h('p', { class: 'muted' }, 'Loading…'));
  dialog().showModal();
  try {
    render((await get<{ preferences: Preferences }>('notifications')).preferences);
  } catch (error) {
    toast(explain(error), 'error');
  }
}

export function setUpSettings(): void {
  byId('open-settings').addEventListener('click', () => void openSettings());
  byId('settings-form').addEventListener('submit', (event) => void save(event));
  byId('settings-close').addEventListener('click', () => dialog().close());
}
