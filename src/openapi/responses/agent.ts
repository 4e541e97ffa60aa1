import { z } from 'zod';
import { NOTIFICATION_EVENTS } from '../../domain/notifications/preferences';
import { agentCompany, agentUser } from './accounts';
import { agentMessage } from './conversations';
import { count, displayTime, id, isoOffset, uuid } from './formats';
import { named } from './named';

export const agentToken = named(
  'AgentToken',
  z.object({
    token: z.string().describe('`<id>|<40 characters>`: send as `Authorization: Bearer <token>`'),
    expires_at: isoOffset,
    device_name: z.string().nullable(),
    user: agentUser,
    company: agentCompany,
  }),
);

export const agentSession = named('AgentSession', z.object({ user: agentUser, company: agentCompany, expires_at: isoOffset, device_name: z.string().nullable() }));

export const statusOnly = z.object({ status: z.enum(['bot', 'agent', 'closed']) });

export const blockedOnly = z.object({ blocked: z.boolean() });

export const replied = z.object({ message: agentMessage, duplicate: z.literal(true).optional().describe('present when the client_id was used before') });

export const note = z.object({ note: z.object({ id, body: z.string(), author: z.string(), at: displayTime }) });

export const cannedReply = named('CannedReply', z.object({ id, title: z.string(), shortcut: z.string(), body: z.string() }));

const storeOrder = z.object({ name: z.string(), total: z.string(), financial_status: z.string(), fulfillment_status: z.string(), created_at: z.string(), url: z.string() });
const subscription = z.object({ status: z.string(), plan: z.string(), amount: z.string().nullable(), renews: z.string().nullable() });

export const customerContext = named(
  'CustomerContext',
  z.object({
    email: z.string().nullable().describe("the visitor's email: the verified identity's when it carries one, else the one the visitor typed"),
    email_source: z.enum(['verified', 'typed']).nullable().describe('`verified`: from the widget identity token; `typed`: pre-chat form or widget meta; null: no email'),
    lookup_skipped: z
      .enum(['no_email', 'unverified_email'])
      .nullable()
      .describe('why the services were not asked (only a verified email is looked up); null when every connected service was'),
    shopify: z.object({ connected: z.boolean(), orders: z.array(storeOrder), error: z.string().optional() }),
    stripe: z.object({
      connected: z.boolean(),
      data: z
        .union([
          z.object({ found: z.literal(false) }),
          z.object({ found: z.literal(true), customer: z.object({ name: z.string().nullable(), email: z.string().nullable() }), subscriptions: z.array(subscription) }),
        ])
        .nullable(),
      error: z.string().optional(),
    }),
  }),
);

export const revenue = named(
  'Revenue',
  z.object({ revenue_cents: z.int().min(0), revenue_amount: z.number().min(0), revenue_currency: z.string().regex(/^[A-Z]{3}$/), revenue_label: z.string() }),
);

export const lead = z.object({ lead: z.object({ id, status: z.enum(['new', 'contacted', 'won', 'lost']), source: z.string() }) });

export const liveVisitors = named(
  'LiveVisitors',
  z.object({
    enabled: z.boolean(),
    poll_seconds: z.int().positive(),
    visitors: z.array(
      z.object({
        id: z.string(),
        chatbot: z.string(),
        chatbot_id: id,
        page: z.string(),
        title: z.string(),
        referrer: z.string(),
        country: z.string(),
        device: z.string(),
        browser: z.string(),
        os: z.string(),
        page_views: count,
        first_seen: displayTime,
        last_seen: displayTime,
        conversation_id: uuid.nullable(),
        online: z.literal(true),
      }),
    ),
    total: count,
  }),
);

export const invited = z.object({ conversation_id: uuid, created: z.boolean(), delivery_within_seconds: z.int().positive(), message: agentMessage });

export const pushSubscription = z.object({ subscription: z.object({ id, endpoint: z.string(), device_name: z.string().nullable() }) });

const clock = z.string().regex(/^\d{2}:\d{2}$/);
const eventPreference = z.object({ push: z.boolean(), sound: z.string().nullable() });

export const notificationPreferences = named(
  'NotificationPreferences',
  z.object({
    preferences: z.object({
      push_enabled: z.boolean(),
      sound_enabled: z.boolean(),
      vibrate_enabled: z.boolean(),
      email_enabled: z.boolean(),
      events: z.object(Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, eventPreference]))),
      sound_pack: z.string(),
      volume: z.int().min(0).max(100),
      quiet_hours_start: clock.nullable(),
      quiet_hours_end: clock.nullable(),
      quiet_hours_tz: z.string(),
      dnd_minutes: z.int().min(0).max(1440),
      dnd_until: isoOffset.nullable(),
      chatbot_filter: z.array(id),
    }),
  }),
  "An agent's notification preferences, every field resolved.",
);
