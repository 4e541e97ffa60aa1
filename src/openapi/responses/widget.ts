import { z } from 'zod';
import { branding, prechat, publicKey } from './chatbots';
import { conversationStatus, conversationView, handoffState, widgetMessage } from './conversations';
import { id, uuid } from './formats';
import { named } from './named';

/** The widget's language: `auto` (the browser's) or an ISO 639-1 code; English where no catalogue exists. */

export const widgetConfig = named(
  'WidgetConfig',
  z.object({
    public_key: publicKey,
    name: z.string(),
    welcome_message: z.string(),
    branding,
    prechat,
    identity_required: z.boolean(),
    realtime: z.object({ transport: z.literal('socket.io'), url: z.string(), path: z.literal('/socket.io') }),
    poll_seconds: z.int().positive(),
    powered_by: z.string().describe('the workspace brand\'s "powered by" line; empty when white-labelled (the widget shows none)'),
  }),
  "The chatbot's public settings for the embed script.",
);

/** Auto routing only (docs/routing.md): absent in manual mode. */
export const queuePositionField = z
  .int()
  .min(1)
  .nullable()
  .optional()
  .describe('auto routing only: the place in the workspace queue while waiting for a person (1 = next); null when not waiting; absent in manual mode');

const stateFields = {
  status: conversationStatus,
  handoff_state: handoffState,
  wait_remaining: z.int().min(0).nullable(),
  queue_position: queuePositionField,
  messages: z.array(widgetMessage),
};

/** The handoff answer: where the conversation stands, and in auto mode its place in the queue. */
export const handoffAnswer = named(
  'HandoffAnswer',
  conversationView.extend({
    queue_position: queuePositionField,
    offline: z.literal(true).optional().describe('outside business hours only: nobody is there now (the widget asks for an email)'),
    offline_message: z.string().optional().describe("outside business hours only: the workspace's offline message"),
  }),
);

export const latestState = named('WidgetLatestConversation', z.object({ conversation_id: uuid, ...stateFields }));
export const conversationState = named('WidgetConversationState', z.object(stateFields));

export const resetAnswer = z.object({ closed: z.boolean(), conversation_id: uuid });

export const heartbeatAnswer = named(
  'HeartbeatAnswer',
  z.object({ poll_seconds: z.int().positive(), conversation_id: uuid.nullable(), messages: z.array(widgetMessage) }),
  'The interval the server wants, the conversation to show, and agent messages waiting for this visitor (each handed over once).',
);

/** The `data` of each server-sent event of the widget stream, by event name. */
export const streamEvents = {
  meta: z.object({ conversation_id: uuid, visitor_message_id: id, status: conversationStatus }),
  delta: z.object({ delta: z.string() }),
  recommendations: z.object({
    products: z.array(
      z.object({ id, name: z.string(), price: z.string(), currency: z.string(), url: z.string(), buy_url: z.string(), image_url: z.string().nullable(), description: z.string(), in_stock: z.boolean() }),
    ),
  }),
  done: conversationView.extend({ message_id: id, source: z.enum(['ai', 'knowledge', 'handoff']), sources: z.array(z.object({ title: z.string(), url: z.string() })) }),
  error: z.object({ message: z.string(), code: z.enum(['provider_unreachable', 'limit_reached', 'handoff', 'internal']) }),
};
