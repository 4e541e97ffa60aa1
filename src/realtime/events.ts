// The realtime wire vocabulary (docs/api.md "Realtime"): event names, their data, the envelope and the socket protocol.
import type { Server, Socket } from 'socket.io';
import type { presentMessageEvent } from '../presenters/message';
import type {
  presentConversationAssigned,
  presentConversationEvent,
  presentConversationRead,
  presentConversationWatchers,
  presentMessageDelta,
  presentNotification,
  presentQueuePosition,
  presentSuggestionReady,
  presentTyping,
  presentVisitorPresence,
} from '../presenters/realtimeEvents';

export const REALTIME_EVENTS = [
  'conversation.created',
  'conversation.updated',
  'conversation.watchers',
  'message.created',
  'message.delta',
  'visitor.online',
  'visitor.offline',
  'suggestion.ready',
  'conversation.assigned',
  'read',
  'notification',
  'typing',
  'queue.position',
] as const;

export type RealtimeEventName = (typeof REALTIME_EVENTS)[number];

export type ConversationEventData = ReturnType<typeof presentConversationEvent>;

/** Each event's data, as its presenter shapes it (src/presenters/). */
export interface RealtimeEventData {
  'conversation.created': ConversationEventData;
  'conversation.updated': ConversationEventData;
  'conversation.watchers': ReturnType<typeof presentConversationWatchers>;
  'message.created': ReturnType<typeof presentMessageEvent>;
  'message.delta': ReturnType<typeof presentMessageDelta>;
  'visitor.online': ReturnType<typeof presentVisitorPresence>;
  'visitor.offline': ReturnType<typeof presentVisitorPresence>;
  'suggestion.ready': ReturnType<typeof presentSuggestionReady>;
  'conversation.assigned': ReturnType<typeof presentConversationAssigned>;
  read: ReturnType<typeof presentConversationRead>;
  notification: ReturnType<typeof presentNotification>;
  typing: ReturnType<typeof presentTyping>;
  'queue.position': ReturnType<typeof presentQueuePosition>;
}

/** What every delivery carries; `seq` rises per conversation so a client can spot a gap and catch up over HTTP. */
export interface RealtimeEnvelope<E extends RealtimeEventName = RealtimeEventName> {
  channel: string;
  event: E;
  data: RealtimeEventData[E];
  seq: number;
}

/** The events a widget socket also receives for its own conversation; never deltas. */
export const WIDGET_EVENTS: ReadonlySet<RealtimeEventName> = new Set(['message.created', 'conversation.updated', 'typing', 'queue.position']);

/** Whether a conversation event also goes to its widget: one of WIDGET_EVENTS, and never the visitor's own typing echoed back. */
export function reachesWidget<E extends RealtimeEventName>(event: E, data: RealtimeEventData[E]): boolean {
  if (!WIDGET_EVENTS.has(event)) return false;
  return event !== 'typing' || (data as RealtimeEventData['typing']).who === 'agent';
}

export type SubscribeAck = { ok: true } | { ok: false; message: string };

export type ServerToClientEvents = Record<RealtimeEventName, (envelope: RealtimeEnvelope) => void>;

/** Arguments are read defensively (a client may send anything, with or without an ack callback). */
export interface ClientToServerEvents {
  subscribe: (...args: unknown[]) => void;
  unsubscribe: (...args: unknown[]) => void;
  typing: (...args: unknown[]) => void;
}

export type InterServerEvents = Record<string, never>;

/**
 * Who a socket is, fixed at connection time by the auth middleware. An agent socket lives only as long
 * as its token (`expiresAt`, epoch ms) and is closed when the token is revoked (src/realtime/sessionGuard.ts).
 */
export type SocketIdentity =
  | { kind: 'agent'; userId: number; companyId: number; tokenId: number; expiresAt: number }
  | { kind: 'widget'; companyId: number; chatbotId: number; conversationId: string };

export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketIdentity>;
export type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketIdentity>;
