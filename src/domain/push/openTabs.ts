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
  const { allowed, preferences } = await willingRecipients(event, now);
  const throttle = throttleOf(ctx);
  const notified: TabNotification[] = [];
  for (const user of allowed) {
    if (!(await throttleAllows(throttle, event, user.id, VISITOR_MESSAGE_WINDOW_MS))) continue;
    notified.push({ userId: user.id, notification: notificationFor(event, preferences.get(user.id)!, ctx.config.appUrl) });
  }
  return notified;
}
