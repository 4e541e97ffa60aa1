import { z } from 'zod';
import { CLOCK_TIME, isTimeZone, ZONE_NAME } from '../../domain/notifications/clock';
import { NOTIFICATION_EVENTS, type NotificationEvent, type PreferencesChange } from '../../domain/notifications/preferences';
import { loadPreferences, savePreferences, workspaceChatbotIds } from '../../domain/notifications/storedPreferences';
import { removePushSubscription, savePushSubscription } from '../../domain/push/subscriptions';
import { AppError, validationFailed } from '../../errors';
import { authOf } from '../../http/authenticate';
import { NOT_BLANK } from '../../http/validate';
import { AddressRefused, checkLiteralHost, outboundPolicy, type AddressPolicy } from '../../net/outboundAddress';
import { messageBody } from '../../openapi/responses/common';
import { notificationPreferences, pushSubscription } from '../../openapi/responses/agent';
import { presentNotificationPreferences, presentPushSubscription } from '../../presenters/agent';
import { endpoint } from '../endpoint';
import { deviceName } from './session';

const pushKey = (field: string) => z.string().max(255).regex(NOT_BLANK, `The ${field} field is required.`);

/** Push services only hand out https endpoints; anything else is a typo or an attempt to make the server call elsewhere. */
function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** A push endpoint: the key a device's subscription is saved and removed by. */
const HTTPS_URL_RULE = 'The endpoint field must be an https URL.';
const pushEndpoint = z
  .string()
  .max(2048)
  .regex(NOT_BLANK, { message: 'The endpoint field is required.', abort: true })
  // The scheme as a pattern (the document shows it), the rest of the address as the URL parser reads it.
  .regex(/^https:\/\//i, { message: HTTPS_URL_RULE, abort: true })
  .refine(isHttpsUrl, HTTPS_URL_RULE);

export const subscriptionBody = z.object({
  endpoint: pushEndpoint,
  keys: z.object({ p256dh: pushKey('p256dh'), auth: pushKey('auth') }),
  device_name: deviceName,
});

// Only https endpoints are ever saved, so anything else is a client mistake, not a device to forget.
export const unsubscribeBody = z.object({ endpoint: pushEndpoint });

const TIME_ZONE_RULE = 'The quiet hours tz field must be a time zone name such as Europe/Paris.';

const clockTime = (field: string) =>
  z.string().regex(CLOCK_TIME, `The ${field} field must be a time in HH:MM format, 00:00 to 23:59.`).nullable().optional();

const eventChange = z.object({
  push: z.boolean(),
  sound: z
    .string()
    .max(24)
    .nullable()
    .optional()
    .transform((value) => (value === undefined ? undefined : value?.trim() || null)),
});

// Unknown event keys are left out of the shape, so zod drops them instead of refusing the update.
const eventsShape = Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, eventChange.optional()])) as Record<
  NotificationEvent,
  z.ZodOptional<typeof eventChange>
>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
// Run even when another field failed, so one answer names every problem.
const always = { when: ({ value }: { value: unknown }) => isObject(value) };

export const preferencesBody = z
  .object({
    push_enabled: z.boolean().optional(),
    sound_enabled: z.boolean().optional(),
    vibrate_enabled: z.boolean().optional(),
    email_enabled: z.boolean().optional(),
    events: z.object(eventsShape).optional(),
    sound_pack: z.string().max(24).regex(NOT_BLANK, 'The sound pack field is required.').transform((value) => value.trim()).optional(),
    volume: z.number().int().min(0).max(100).optional(),
    quiet_hours_start: clockTime('quiet hours start'),
    quiet_hours_end: clockTime('quiet hours end'),
    quiet_hours_tz: z
      .string()
      .max(64)
      .regex(ZONE_NAME, { message: TIME_ZONE_RULE, abort: true })
      .refine(isTimeZone, TIME_ZONE_RULE)
      .nullable()
      .optional(),
    dnd_minutes: z.number().int().min(0).max(1440).optional(),
    chatbot_filter: z
      // Items are checked together below (one message for the field); the document shows them as integers.
      .array(z.unknown().meta({ type: 'integer' }))
      .max(500)
      .refine((ids) => ids.every((id) => Number.isInteger(id)), 'The chatbot filter field must be a list of chatbot ids.')
      .transform((ids) => ids as number[])
      .nullable()
      .optional(),
  })
  // A window needs both ends; switching it off takes null for both. The error names the end that is missing.
  .refine((body) => !lacksOtherEnd(body.quiet_hours_start, body.quiet_hours_end), {
    ...always,
    path: ['quiet_hours_end'],
    message: 'The quiet hours end field is required when quiet hours start is present; send null for both to switch quiet hours off.',
  })
  .refine((body) => !lacksOtherEnd(body.quiet_hours_end, body.quiet_hours_start), {
    ...always,
    path: ['quiet_hours_start'],
    message: 'The quiet hours start field is required when quiet hours end is present; send null for both to switch quiet hours off.',
  })
  .refine((body) => !(typeof body.quiet_hours_start === 'string' && body.quiet_hours_start === body.quiet_hours_end), {
    ...always,
    path: ['quiet_hours_end'],
    message: 'The quiet hours end must differ from the start.',
  });

/** One end sent as a time with the other absent or null, or one sent as null with the other absent. */
function lacksOtherEnd(sent: unknown, other: unknown): boolean {
  return (typeof sent === 'string' && (other === undefined || other === null)) || (sent === null && other === undefined);
}

/**
 * An endpoint whose host is a literal address the outbound policy refuses can never be delivered to:
 * refused up front. Hostnames are judged at delivery, after resolution, where the answer counts.
 */
function refuseLiteralAddress(endpoint: string, policy: AddressPolicy): void {
  try {
    checkLiteralHost(new URL(endpoint).hostname, policy);
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    throw validationFailed({ endpoint: [`The endpoint field must not point at ${error.description}.`] });
  }
}

const pushNotConfigured = () => new AppError(503, 'not_configured', 'Push notifications are not configured on this server.');

const agent = { surface: 'agent', auth: 'agent' } as const;

const notConfigured = 'Web push is not configured on this server (no VAPID keys); checked after the body (an invalid body is 422 either way).';

/** Web push: the VAPID key, device subscriptions, and each agent's notification preferences. */
export const pushEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/push/vapid',
    summary: 'The public key a device needs before subscribing to web push',
    responses: { 200: { description: '`configured` false (and no key) on a server without push.', json: z.object({ configured: z.boolean(), public_key: z.string().nullable() }) } },
    handler: ({ ctx }, _req, res) => {
      res.json({ configured: ctx.config.vapid !== undefined, public_key: ctx.config.vapid?.publicKey ?? null });
    },
  }),
  endpoint({
    ...agent,
    method: 'post',
    path: '/api/agent/push/subscriptions',
    summary: 'Save this device’s push subscription (keyed by endpoint)',
    description: 'A repeat of a saved endpoint updates it (and moves it to the caller); an absent `device_name` keeps the saved one, null or blank clears it.',
    limit: { name: 'agent-push-subscribe', points: 20, seconds: 60, by: 'user' },
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
    handler: async ({ ctx, body: parseBody }, req, res) => {
      // An invalid body is the client's mistake wherever it is sent: 422 first, then whether this server can push at all.
      const body = parseBody();
      refuseLiteralAddress(body.endpoint, outboundPolicy(ctx.config.outbound.allowPrivate));
      if (!ctx.config.vapid) throw pushNotConfigured();
      const saved = await savePushSubscription(authOf(req).user, {
        endpoint: body.endpoint,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        deviceName: body.device_name,
      });
      res.status(saved.created ? 201 : 200).json({ subscription: presentPushSubscription(saved) });
    },
  }),
  // Works without VAPID keys too: a device may always stop being notified.
  endpoint({
    ...agent,
    method: 'delete',
    path: '/api/agent/push/subscriptions',
    summary: 'Stop push to this device (idempotent; works without VAPID keys)',
    body: { schema: unsubscribeBody, examples: [{ endpoint: 'https://fcm.googleapis.com/fcm/send/dZ3k9' }] },
    responses: { 200: { description: 'Removed, or nothing to remove.', json: messageBody } },
    handler: async ({ body }, req, res) => {
      const { endpoint } = body();
      await removePushSubscription(authOf(req).user, endpoint);
      res.json({ message: 'This device will no longer receive push notifications.' });
    },
  }),
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/notifications',
    summary: "The caller's notification preferences",
    responses: { 200: { description: 'Every field, resolved.', json: notificationPreferences } },
    handler: async (_input, req, res) => {
      res.json({ preferences: presentNotificationPreferences(await loadPreferences(authOf(req).user)) });
    },
  }),
  endpoint({
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
    handler: async ({ body: parseBody }, req, res) => {
      const body = parseBody();
      const { user, company } = authOf(req);
      const change: PreferencesChange = {
        pushEnabled: body.push_enabled,
        soundEnabled: body.sound_enabled,
        vibrateEnabled: body.vibrate_enabled,
        emailEnabled: body.email_enabled,
        events: body.events,
        soundPack: body.sound_pack,
        volume: body.volume,
        quietHours: quietHoursOf(body.quiet_hours_start, body.quiet_hours_end),
        quietHoursTz: body.quiet_hours_tz,
        dndMinutes: body.dnd_minutes,
        chatbotFilter: body.chatbot_filter === undefined ? undefined : await workspaceChatbotIds(company.id, body.chatbot_filter ?? []),
      };
      const now = new Date();
      res.json({ preferences: presentNotificationPreferences(await savePreferences(user, change, now), now) });
    },
  }),
];

/** The validated pair: both times, both null (off), or both absent (unchanged). */
function quietHoursOf(start: string | null | undefined, end: string | null | undefined): PreferencesChange['quietHours'] {
  if (start === undefined && end === undefined) return undefined;
  return start && end ? { start, end } : null;
}
