import type { Urgency } from 'web-push';
import type { NotificationEvent } from '../notifications/preferences';

export interface DeliveryClass {
  /** Seconds the push service keeps the message for an unreachable device (counted from the event). */
  ttlSeconds: number;
  /** RFC 8030 urgency: how eagerly a device on battery is woken. */
  urgency: Urgency;
}

/**
 * Per event: a person waiting is worth waking a phone for and stays relevant for an hour; an arrival
 * is stale within minutes, so it is sent low and dropped soon when the device is unreachable.
 */
export const DELIVERY: Readonly<Record<NotificationEvent, DeliveryClass>> = Object.freeze({
  handoff_requested: { ttlSeconds: 3_600, urgency: 'high' },
  sla_breach: { ttlSeconds: 3_600, urgency: 'high' },
  // The router's accept time runs (120 s by default): a late push is one for a conversation already gone to someone else.
  conversation_assigned: { ttlSeconds: 600, urgency: 'high' },
  chat_started: { ttlSeconds: 1_800, urgency: 'normal' },
  visitor_message: { ttlSeconds: 900, urgency: 'normal' },
  visitor_arrived: { ttlSeconds: 300, urgency: 'low' },
});

/** Whole seconds of the event's TTL left at `now` (0 once it has run out; a clock behind the raiser's counts as no time passed). */
export function ttlLeft(event: NotificationEvent, raisedAt: number, now: number): number {
  const elapsed = Math.max(0, Math.ceil((now - raisedAt) / 1000));
  return Math.max(0, DELIVERY[event].ttlSeconds - elapsed);
}

/** What became of one delivery that did not throw (a throw means "retry"). */
export type DeliveryOutcome =
  /** The push service accepted it. */
  | 'sent'
  /** The device is gone: unsubscribed, moved to another user, or the push service answered 404/410 (record deleted). */
  | 'gone'
  /** Its TTL ran out (or would, before the push service lets us retry). */
  | 'expired'
  /**
   * The push service refused it for good (another 4xx): logged, not retried. Also an endpoint whose
   * host is or resolves to an address the outbound policy refuses: never connected to, record deleted.
   */
  | 'refused'
  /** VAPID keys were removed since the event was raised. */
  | 'unconfigured';
