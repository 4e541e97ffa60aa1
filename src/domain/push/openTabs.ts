import type { AppContext } from '../../context';
import type { PushEvent } from './events';
import { notificationFor, type PushNotification } from './payload';
import { willingRecipients } from './recipients';
import { VISITOR_MESSAGE_WINDOW_MS } from './runtime';
import { memoryThrottle, redisThrottle, throttleAllows, type PushThrottle } from './throttle';

export interface TabNotification {
  userId: number;
  notification: PushNotification;
}

// One throttle per process: in cluster mode its slots are the push fan-out's own (same Redis keys),
// so a tab and a phone hear of the same visitor messages.
const throttles = new WeakMap<AppContext, PushThrottle>();
const throttleOf = (ctx: AppContext): PushThrottle => {
  let throttle = throttles.get(ctx);
  if (!throttle) throttles.set(ctx, (throttle = ctx.redis ? redisThrottle(ctx.redis, ctx.config.redisPrefix) : memoryThrottle()));
  return throttle;
};

/**
 * What the agents' open tabs show for this event: the payload a push to each agent would carry, for
 * the same agents (recipients, their preferences, the `visitor_message` throttle), whether or not
 * they registered a device or the server has VAPID keys: a tab needs neither.
 */
export async function tabNotifications(ctx: AppContext, event: PushEvent, now = new Date()): Promise<TabNotification[]> {
  const { allowed, preferences } = await sharedRecipients(event, now);
  const throttle = throttleOf(ctx);
  const notified: TabNotification[] = [];
  for (const user of allowed) {
    if (!(await throttleAllows(throttle, event, user.id, VISITOR_MESSAGE_WINDOW_MS))) continue;
    notified.push({ userId: user.id, notification: notificationFor(event, preferences.get(user.id)!, ctx.config.appUrl) });
  }
  return notified;
}

/** Lookups raised in this event-loop turn and not started yet, by audience. */
const starting = new Map<string, ReturnType<typeof willingRecipients>>();

/**
 * `willingRecipients`, shared by events of one kind for the same audience raised in the same
 * event-loop turn: a batch of visitors arriving on one site (their rows land in one statement, so
 * their arrivals are raised together) asks Postgres once, not once per visitor. The lookup starts
 * after every event that shares it was raised, so its answer is as fresh as a lookup of their own.
 */
function sharedRecipients(event: PushEvent, now: Date): ReturnType<typeof willingRecipients> {
  const key = `${event.event}:${event.companyId}:${event.chatbotId}:${event.assignedUserId}`;
  let shared = starting.get(key);
  if (!shared) {
    shared = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      starting.delete(key);
      return willingRecipients(event, now);
    });
    starting.set(key, shared);
  }
  return shared;
}
