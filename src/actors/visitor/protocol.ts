/**
 * The visitor actor's messages. One actor per (workspace, visitor key): id `${companyId}:${visitorKey}`
 * (see `visitorActorId`). It keeps presence in memory, writes it behind to Postgres, and hands over
 * the messages held for the visitor on heartbeats.
 */

export interface HeartbeatInput {
  chatbotId: number;
  companyId: number;
  visitorKey: string;
  /** The chatbot's `behavior_tracking`: off, the beat keeps the visitor present and records no page. */
  trackBehavior: boolean;
  url: string;
  title?: string;
  referrer?: string;
  /** The conversation the widget has open (public uuid), if any. */
  conversationId?: string;
  userAgent?: string;
  /** ISO 3166 alpha-2, upper case, from the edge's country header. */
  country?: string;
  locale?: string;
  /** The IANA zone the widget reported (one the server knows). */
  timezone?: string;
}

/** A held message as the widget receives it; `at` is ISO 8601 with offset. */
export interface DeliveredMessage {
  id: number;
  role: 'agent' | 'system';
  content: string;
  at: string;
}

export interface HeartbeatReply {
  pollSeconds: number;
  conversationId: string | null;
  messages: DeliveredMessage[];
}

/** A visitor as the agent's live list shows them; times are ISO 8601 (null before the first heartbeat). */
export interface PresenceSnapshot {
  online: boolean;
  chatbotId: number | null;
  page: string | null;
  title: string | null;
  referrer: string | null;
  entryPage: string | null;
  pageViews: number;
  firstSeen: string | null;
  lastSeen: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  conversationId: string | null;
}

declare module '../runtime/protocol' {
  interface ActorProtocols {
    visitor: {
      heartbeat: { message: HeartbeatInput; reply: HeartbeatReply };
      /** Told by a conversation actor when it stores an agent/system message with `delivered_at` NULL. */
      held: { message: { conversationId: string } };
      presence: { reply: PresenceSnapshot };
      /** Told by a conversation actor when its `blocked` changed: the next heartbeat on this chatbot reads the block again. */
      blockChanged: { message: { chatbotId: number } };
      /**
       * Which conversation an agent's invite on this chatbot goes into: the visitor's open one, else
       * a new id. Refused (409 `visitor_left`) when the visitor is no longer on the site. Invites
       * ask here first, one at a time, so concurrent ones agree on one conversation.
       */
      inviteConversation: { message: { chatbotId: number }; reply: { conversationId: string } };
      /**
       * Internal: the departure check for the beat at `lastSeen` (epoch ms). Sent by the actor's own
       * timer, or by a reminder set when the actor deactivated while the visitor was online.
       */
      depart: { message: { lastSeen: number } };
    };
  }
}

export const visitorActorId = (companyId: number, visitorKey: string): string => `${companyId}:${visitorKey}`;

/** The workspace id is digits, so the first ':' ends it (a visitor key may hold ':' itself). */
export function parseVisitorActorId(id: string): { companyId: number; visitorKey: string } {
  const at = id.indexOf(':');
  const companyId = Number(id.slice(0, at));
  if (at < 1 || !Number.isInteger(companyId)) throw new Error(`not a visitor actor id: ${id}`);
  return { companyId, visitorKey: id.slice(at + 1) };
}
