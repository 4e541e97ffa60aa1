import type { AppContext } from '../../context';
import type { NotificationEvent } from '../notifications/preferences';

/**
 * Something agents may want to hear about while their app is in the background (docs/push.md
 * "Events and recipients"). The actors raise these after the change they describe is committed.
 */
export interface PushEvent {
  event: NotificationEvent;
  /**
   * Unique per occurrence (`handoff_requested:<conversation>:<requested at>`): with the device it
   * makes the delivery's job id, so raising the same occurrence twice never pushes twice.
   */
  key: string;
  companyId: number;
  chatbotId: number | null;
  /** The conversation's public id; null for `visitor_arrived`. */
  conversationId: string | null;
  /** Who holds the conversation: `visitor_message` and `sla_breach` go to them alone (all when null). */
  assignedUserId: number | null;
  /** Who the notification is about (the visitor's name, or a short label) and what happened. */
  visitor: string;
  text: string;
}

/**
 * Hands the event to background delivery (a `push-fanout` job; docs/push.md); never throws into the
 * actor that raised it. A server without VAPID keys queues nothing: it could not sign a push anyway.
 */
export function raisePushEvent(ctx: AppContext, event: PushEvent): void {
  if (!ctx.config.vapid) return;
  const lost = (error: unknown) => ctx.logger.warn({ err: error, push: event.key }, 'could not queue a push event; agents will not be notified of it');
  try {
    ctx.jobs.enqueue('push-fanout', { ...event, raisedAt: Date.now() }).catch(lost);
  } catch (error) {
    lost(error);
  }
}
