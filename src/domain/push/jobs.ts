import type { NotificationEvent } from '../notifications/preferences';
import type { PushEvent } from './events';
import type { PushNotification } from './payload';

/** The `push-fanout` job: the event as raised, and when (a delivery never outlives the event's TTL). */
export interface PushFanoutJob extends PushEvent {
  /** Epoch milliseconds. */
  raisedAt: number;
}

/** The `push-deliver` job: one notification, already shaped for its agent, to one of their devices. */
export interface PushDeliveryJob {
  /** The event's occurrence key: with the subscription it makes the job id. */
  key: string;
  event: NotificationEvent;
  companyId: number;
  userId: number;
  subscriptionId: number;
  raisedAt: number;
  notification: PushNotification;
}
