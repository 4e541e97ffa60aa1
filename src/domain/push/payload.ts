import type { NotificationEvent, Preferences } from '../notifications/preferences';
import type { PushEvent } from './events';

/**
 * What a device receives, encrypted (docs/push.md "Payload"), plus the agent's sound and
 * vibration settings so the app's service worker can play the right sound without asking the API.
 */
export interface PushNotification {
  event: NotificationEvent;
  title: string;
  body: string;
  /** Where a tap leads: the conversation in the web inbox, or its live visitors list. */
  url: string;
  conversation_id: string | null;
  /** A newer notification with the same tag replaces the older one on the device. */
  tag: string;
  /** The event's chosen sound; null plays the sound pack's default for the event. */
  sound: string | null;
  sound_pack: string;
  sound_enabled: boolean;
  vibrate: boolean;
  /** 0 to 100. */
  volume: number;
}

const TITLE_MAX = 80;
const BODY_MAX = 140;

/** Title and body per event. The actors' `text` is the visitor's own words, a page, or a phrase that follows the name. */
const WORDING: Record<NotificationEvent, (visitor: string, text: string) => { title: string; body: string }> = {
  visitor_arrived: (visitor, text) => ({ title: `${visitor} is on your site`, body: text || 'Browsing now' }),
  chat_started: (visitor, text) => ({ title: `${visitor} started a chat`, body: text }),
  visitor_message: (visitor, text) => ({ title: `New message from ${visitor}`, body: text }),
  handoff_requested: (visitor, text) => ({ title: `${visitor} is waiting for a person`, body: `${visitor} ${text}` }),
  sla_breach: (visitor, text) => ({ title: `${visitor} is still waiting`, body: `${visitor} ${text}` }),
  conversation_assigned: (visitor, text) => ({ title: `${visitor} was assigned to you`, body: text || 'Answer them in the inbox.' }),
};

/** The notification for one agent: the event's wording, where it leads, and that agent's sound settings. */
export function notificationFor(event: PushEvent, prefs: Preferences, appUrl: string): PushNotification {
  const visitor = oneLine(event.visitor) || 'A visitor';
  const wording = WORDING[event.event](visitor, oneLine(event.text));
  const conversation = event.conversationId;
  return {
    event: event.event,
    title: truncate(wording.title, TITLE_MAX),
    body: truncate(wording.body, BODY_MAX),
    url: conversation ? `${appUrl}/inbox/conversations/${encodeURIComponent(conversation)}` : `${appUrl}/inbox`,
    conversation_id: conversation,
    // Arrivals share one tag: a busy site shows the latest arrival, not a pile of them.
    tag: conversation ? `parley-${conversation}` : 'parley-visitors',
    sound: prefs.events[event.event].sound,
    sound_pack: prefs.soundPack,
    sound_enabled: prefs.soundEnabled,
    vibrate: prefs.vibrateEnabled,
    volume: prefs.volume,
  };
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** At most `max` characters (code points, so an emoji is never cut in half), with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}
