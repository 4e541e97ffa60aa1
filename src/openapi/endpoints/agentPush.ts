import { z } from 'zod';
import { preferencesBody, subscriptionBody, unsubscribeBody } from '../../surfaces/agent/push';
import { messageBody } from '../responses/common';
import { notificationPreferences, pushSubscription } from '../responses/agent';
import type { Endpoint } from '../registry';

type Agent = Pick<Endpoint, 'surface' | 'auth'>;

const notConfigured = 'Web push is not configured on this server (no VAPID keys); checked after the body (an invalid body is 422 either way).';

/** Web push: the VAPID key, device subscriptions, and notification preferences. */
export const pushEndpoints = (agent: Agent): Endpoint[] => [
  {
    ...agent,
    method: 'get',
    path: '/api/agent/push/vapid',
    summary: 'The public key a device needs before subscribing to web push',
    responses: { 200: { description: '`configured` false (and no key) on a server without push.', json: z.object({ configured: z.boolean(), public_key: z.string().nullable() }) } },
  },
  {
    ...agent,
    method: 'post',
    path: '/api/agent/push/subscriptions',
    summary: 'Save this device’s push subscription (keyed by endpoint)',
    description: 'A repeat of a saved endpoint updates it (and moves it to the caller); an absent `device_name` keeps the saved one, null or blank clears it.',
    limit: { points: 20, seconds: 60, by: 'user' },
    body: {
      schema: subscriptionBody,
      examples: [
        {
          endpoint: 'https://fcm.googleapis.com/fcm/send/dZ3k9',
          keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
          device_name: 'Pixel 8',
        },
      ],
    },
    responses: {
      200: { description: 'An existing subscription, updated.', json: pushSubscription },
      201: { description: 'A new subscription.', json: pushSubscription },
      503: notConfigured,
    },
  },
  {
    ...agent,
    method: 'delete',
    path: '/api/agent/push/subscriptions',
    summary: 'Stop push to this device (idempotent; works without VAPID keys)',
    body: { schema: unsubscribeBody, examples: [{ endpoint: 'https://fcm.googleapis.com/fcm/send/dZ3k9' }] },
    responses: { 200: { description: 'Removed, or nothing to remove.', json: messageBody } },
  },
  {
    ...agent,
    method: 'get',
    path: '/api/agent/notifications',
    summary: "The caller's notification preferences",
    responses: { 200: { description: 'Every field, resolved.', json: notificationPreferences } },
  },
  {
    ...agent,
    method: 'patch',
    path: '/api/agent/notifications',
    summary: 'Change notification preferences (only the sent fields change)',
    description: '`events` merges per key (unknown keys are ignored); quiet hours take both ends (null for both switches them off); `dnd_minutes` counts from now (0 cancels); `chatbot_filter` ids outside the workspace are dropped.',
    body: {
      schema: preferencesBody,
      examples: [
        {
          push_enabled: true,
          events: { visitor_message: { push: true, sound: 'chime' }, visitor_arrived: { push: false } },
          sound_pack: 'classic',
          volume: 60,
          quiet_hours_start: '22:00',
          quiet_hours_end: '07:00',
          quiet_hours_tz: 'Europe/Paris',
          dnd_minutes: 30,
          chatbot_filter: [1],
        },
      ],
    },
    responses: { 200: { description: 'The preferences after the change.', json: notificationPreferences }, 500: 'The settings could not be saved.' },
  },
];
