import { jobIdPart, type JobKinds } from '../../jobs/definitions';
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

declare module '../../jobs/definitions' {
  interface JobPayloads {
    /** One agent notification event: find who should hear of it and queue one delivery per device. */
    'push-fanout': PushFanoutJob;
    /** One notification to one device (push subscription). */
    'push-deliver': PushDeliveryJob;
  }
}

export type PushJobName = 'push-fanout' | 'push-deliver';

export const PUSH_JOB_KINDS: JobKinds<PushJobName> = {
  // An event raised twice (a retried actor turn) must not notify twice; an hour outlives every push's TTL.
  'push-fanout': {
    policy: { attempts: 5, backoffMs: 1_000, concurrency: 4, rememberDoneSeconds: 3_600 },
    idOf: ({ key }) => `push-fanout-${jobIdPart(key)}`,
  },
  // 2 + 4 + 8 + 16 + 32 s of backoff: about a minute of push-service trouble is ridden out.
  'push-deliver': {
    policy: { attempts: 6, backoffMs: 2_000, concurrency: 16, rememberDoneSeconds: 3_600 },
    idOf: ({ key, subscriptionId }) => `push-deliver-${subscriptionId}-${jobIdPart(key)}`,
  },
};
