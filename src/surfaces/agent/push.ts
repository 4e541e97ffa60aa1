import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { isClockTime, isTimeZone } from '../../domain/notifications/clock';
import { NOTIFICATION_EVENTS, type NotificationEvent, type PreferencesChange } from '../../domain/notifications/preferences';
import { loadPreferences, savePreferences, workspaceChatbotIds } from '../../domain/notifications/storedPreferences';
import { removePushSubscription, savePushSubscription } from '../../domain/push/subscriptions';
import { AppError, validationFailed } from '../../errors';
import { authOf } from '../../http/authenticate';
import { rateLimit } from '../../http/rateLimit';
import { notBlank, parse } from '../../http/validate';
import { AddressRefused, checkLiteralHost, outboundPolicy, type AddressPolicy } from '../../net/outboundAddress';
import { presentNotificationPreferences, presentPushSubscription } from '../../presenters/agent';
import { deviceName } from './session';

const pushKey = (field: string) => z.string().max(255).refine(notBlank, `The ${field} field is required.`);

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
const pushEndpoint = z.string().max(2048).refine(notBlank, { message: 'The endpoint field is required.', abort: true }).refine(isHttpsUrl, 'The endpoint field must be an https URL.');

export const subscriptionBody = z.object({
  endpoint: pushEndpoint,
  keys: z.object({ p256dh: pushKey('p256dh'), auth: pushKey('auth') }),
  device_name: deviceName,
});

// Only https endpoints are ever saved, so anything else is a client mistake, not a device to forget.
export const unsubscribeBody = z.object({ endpoint: pushEndpoint });

const clockTime = (field: string) =>
  z.string().refine(isClockTime, `The ${field} field must be a time in HH:MM format, 00:00 to 23:59.`).nullable().optional();

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
    sound_pack: z.string().max(24).refine(notBlank, 'The sound pack field is required.').transform((value) => value.trim()).optional(),
    volume: z.number().int().min(0).max(100).optional(),
    quiet_hours_start: clockTime('quiet hours start'),
    quiet_hours_end: clockTime('quiet hours end'),
    quiet_hours_tz: z.string().max(64).refine(isTimeZone, 'The quiet hours tz field must be a time zone name such as Europe/Paris.').nullable().optional(),
    dnd_minutes: z.number().int().min(0).max(1440).optional(),
    chatbot_filter: z
      .array(z.unknown())
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

/** Web push: the VAPID key, device subscriptions, and each agent's notification preferences. */
export function pushRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/push/vapid', (_req, res) => {
    res.json({ configured: ctx.config.vapid !== undefined, public_key: ctx.config.vapid?.publicKey ?? null });
  });

  router.post('/push/subscriptions', rateLimit(ctx.limiters, { name: 'agent-push-subscribe', points: 20, duration: 60, by: 'user' }), async (req, res) => {
    // An invalid body is the client's mistake wherever it is sent: 422 first, then whether this server can push at all.
    const body = parse(subscriptionBody, req.body);
    refuseLiteralAddress(body.endpoint, outboundPolicy(ctx.config.outbound.allowPrivate));
    if (!ctx.config.vapid) throw pushNotConfigured();
    const saved = await savePushSubscription(authOf(req).user, {
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
      deviceName: body.device_name,
    });
    res.status(saved.created ? 201 : 200).json({ subscription: presentPushSubscription(saved) });
  });

  // Works without VAPID keys too: a device may always stop being notified.
  router.delete('/push/subscriptions', async (req, res) => {
    const { endpoint } = parse(unsubscribeBody, req.body);
    await removePushSubscription(authOf(req).user, endpoint);
    res.json({ message: 'This device will no longer receive push notifications.' });
  });

  router.get('/notifications', async (req, res) => {
    res.json({ preferences: presentNotificationPreferences(await loadPreferences(authOf(req).user)) });
  });

  router.patch('/notifications', async (req, res) => {
    const body = parse(preferencesBody, req.body);
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
  });

  return router;
}

/** The validated pair: both times, both null (off), or both absent (unchanged). */
function quietHoursOf(start: string | null | undefined, end: string | null | undefined): PreferencesChange['quietHours'] {
  if (start === undefined && end === undefined) return undefined;
  return start && end ? { start, end } : null;
}
