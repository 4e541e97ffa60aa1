import { raisePushEvent, type PushEvent } from '../domain/push/events';
import { tabNotifications } from '../domain/push/openTabs';
import { presentNotification } from '../presenters/realtimeEvents';
import { userChannel } from '../realtime/channels';
import type { ActorDeps } from './deps';

/**
 * Tells agents of an event after the change it describes committed: a push to their devices (in the
 * background) and `notification` on each one's own channel, for tabs that are open. `seq` is the
 * conversation's at the time (0 for a visitor's arrival): a notification is not an event of the
 * conversation, so it never advances it. Never throws into the actor that raised it.
 */
export function notifyAgents(deps: ActorDeps, event: PushEvent, seq: number): void {
  raisePushEvent(deps.ctx, event);
  tabNotifications(deps.ctx, event).then(
    (notified) => {
      for (const { userId, notification } of notified) deps.realtime.emit(userChannel(userId), 'notification', presentNotification(notification), seq);
    },
    (error: unknown) => deps.ctx.logger.warn({ err: error, push: event.key }, 'could not notify open tabs of an event'),
  );
}
