import type { NotificationEvents, NotificationPreference } from '../../models';
import { isClockTime, localMinutes, minutesOfClock, withinWindow } from './clock';

/** The agent notification event keys (docs/api.md "Notification preferences"). */
export const NOTIFICATION_EVENTS = ['visitor_arrived', 'chat_started', 'visitor_message', 'handoff_requested', 'sla_breach', 'conversation_assigned'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface EventPreference {
  push: boolean;
  /** A sound name; null plays the sound pack's default for the event. */
  sound: string | null;
}

/** What a notification_preferences row holds (the table's defaults stand in when a user has none). */
export type StoredPreferences = Pick<
  NotificationPreference,
  | 'pushEnabled'
  | 'soundEnabled'
  | 'vibrateEnabled'
  | 'emailEnabled'
  | 'events'
  | 'soundPack'
  | 'volume'
  | 'quietHoursStart'
  | 'quietHoursEnd'
  | 'quietHoursTz'
  | 'dndUntil'
  | 'chatbotFilter'
>;

/** One agent's settings with every default filled in: what the app shows and what push delivery obeys. */
export interface Preferences extends Omit<StoredPreferences, 'events' | 'quietHoursTz'> {
  events: Record<NotificationEvent, EventPreference>;
  /** The zone quiet hours are read in: the stored one, else the user's own, else UTC. */
  quietHoursTz: string;
}

/** The column defaults of notification_preferences, for a user who never saved any. */
export const DEFAULT_STORED: Readonly<StoredPreferences> = Object.freeze({
  pushEnabled: true,
  soundEnabled: true,
  vibrateEnabled: true,
  emailEnabled: false,
  events: {},
  soundPack: 'default',
  volume: 80,
  quietHoursStart: null,
  quietHoursEnd: null,
  quietHoursTz: null,
  dndUntil: null,
  chatbotFilter: [],
});

export const DEFAULT_EVENT: Readonly<EventPreference> = Object.freeze({ push: true, sound: null });

export const isNotificationEvent = (value: string): value is NotificationEvent => (NOTIFICATION_EVENTS as readonly string[]).includes(value);

export function resolvePreferences(stored: StoredPreferences | null, userTimezone: string | null = null): Preferences {
  const row = stored ?? DEFAULT_STORED;
  return {
    pushEnabled: row.pushEnabled,
    soundEnabled: row.soundEnabled,
    vibrateEnabled: row.vibrateEnabled,
    emailEnabled: row.emailEnabled,
    events: resolveEvents(row.events),
    soundPack: row.soundPack,
    volume: row.volume,
    quietHoursStart: row.quietHoursStart?.trim() || null,
    quietHoursEnd: row.quietHoursEnd?.trim() || null,
    quietHoursTz: row.quietHoursTz || userTimezone || 'UTC',
    dndUntil: row.dndUntil,
    chatbotFilter: [...row.chatbotFilter],
  };
}

function resolveEvents(stored: NotificationEvents): Record<NotificationEvent, EventPreference> {
  const entries = NOTIFICATION_EVENTS.map((event) => {
    const saved = stored[event];
    return [event, { push: saved?.push ?? DEFAULT_EVENT.push, sound: saved?.sound ?? DEFAULT_EVENT.sound }] as const;
  });
  return Object.fromEntries(entries) as Record<NotificationEvent, EventPreference>;
}

/** A partial update as the agent app sends it, already validated: absent fields keep their value. */
export interface PreferencesChange {
  pushEnabled?: boolean;
  soundEnabled?: boolean;
  vibrateEnabled?: boolean;
  emailEnabled?: boolean;
  /** Per event: `push` always; `sound` only when sent (absent keeps the saved sound). */
  events?: Partial<Record<NotificationEvent, { push: boolean; sound?: string | null }>>;
  soundPack?: string;
  volume?: number;
  /** Both ends, or null to switch quiet hours off. */
  quietHours?: { start: string; end: string } | null;
  /** Null goes back to the user's own zone (or UTC). */
  quietHoursTz?: string | null;
  /** 0 cancels do-not-disturb. */
  dndMinutes?: number;
  /** Already limited to the workspace's chatbots; empty clears the filter. */
  chatbotFilter?: number[];
}

/** The columns to write for a change: the `events` map merged key by key, DND turned into an end time. */
export function mergeChange(current: StoredPreferences, change: PreferencesChange, now: Date): Partial<StoredPreferences> {
  const update: Partial<StoredPreferences> = {};
  for (const field of ['pushEnabled', 'soundEnabled', 'vibrateEnabled', 'emailEnabled', 'soundPack', 'volume', 'quietHoursTz', 'chatbotFilter'] as const) {
    if (change[field] !== undefined) Object.assign(update, { [field]: change[field] });
  }
  if (change.events) update.events = mergeEvents(current.events, change.events);
  if (change.quietHours !== undefined) {
    update.quietHoursStart = change.quietHours?.start ?? null;
    update.quietHoursEnd = change.quietHours?.end ?? null;
  }
  if (change.dndMinutes !== undefined) {
    update.dndUntil = change.dndMinutes > 0 ? new Date(now.getTime() + change.dndMinutes * 60_000) : null;
  }
  return update;
}

function mergeEvents(current: NotificationEvents, sent: NonNullable<PreferencesChange['events']>): NotificationEvents {
  // Keys this version does not know are dropped rather than carried along forever.
  const merged: NotificationEvents = Object.fromEntries(Object.entries(current).filter(([key]) => isNotificationEvent(key)));
  for (const event of NOTIFICATION_EVENTS) {
    const change = sent[event];
    if (!change) continue;
    const sound = change.sound !== undefined ? change.sound : (merged[event]?.sound ?? null);
    merged[event] = { push: change.push, sound };
  }
  return merged;
}

/**
 * Whether a push for `event` about a conversation of `chatbotId` may reach this agent at `now`:
 * master switch, the event's own switch, do-not-disturb, the chatbot filter (an event tied to no
 * chatbot passes it), and quiet hours read on the agent's clock (a window may run across midnight).
 */
export function allowsPush(prefs: Preferences, event: NotificationEvent, chatbotId: number | null, now: Date): boolean {
  if (!prefs.pushEnabled) return false;
  if (!prefs.events[event].push) return false;
  if (prefs.dndUntil && prefs.dndUntil.getTime() > now.getTime()) return false;
  if (chatbotId !== null && prefs.chatbotFilter.length > 0 && !prefs.chatbotFilter.includes(chatbotId)) return false;
  return !inQuietHours(prefs, now);
}

export function inQuietHours(prefs: Pick<Preferences, 'quietHoursStart' | 'quietHoursEnd' | 'quietHoursTz'>, now: Date): boolean {
  // A malformed stored time switches quiet hours off instead of failing every delivery.
  if (!prefs.quietHoursStart || !prefs.quietHoursEnd || !isClockTime(prefs.quietHoursStart) || !isClockTime(prefs.quietHoursEnd)) return false;
  const start = minutesOfClock(prefs.quietHoursStart);
  const end = minutesOfClock(prefs.quietHoursEnd);
  if (start === end) return false;
  return withinWindow(localMinutes(now, prefs.quietHoursTz), start, end);
}

/** Whole minutes of do-not-disturb left at `now`, rounded up (0 when off or over). */
export function dndMinutesLeft(dndUntil: Date | null, now: Date): number {
  if (!dndUntil) return 0;
  return Math.max(0, Math.ceil((dndUntil.getTime() - now.getTime()) / 60_000));
}
