import type { ActiveConversation } from '../domain/inbox/activeConversation';
import type { InboxRow } from '../domain/inbox/listInbox';
import { prechatOf } from '../domain/chatbots/prechat';
import { capturedContact } from '../domain/leads/capturedContact';
import { DEFAULT_CURRENCY } from '../domain/leads/revenue';
import { visitorDisplayName } from '../domain/visitors/displayName';
import { isOnline } from '../domain/visitors/presence';
import { presentNote } from './agent';
import { presentRevenue } from './customerContext';
import { displayDate, displayTime, relativeTime } from './displayTime';
import { presentThreadMessage } from './message';
import type { Watcher } from './realtimeEvents';

export interface InboxClock {
  now: Date;
  /** The heartbeat interval in force: a visitor is online until two of them pass without a beat. */
  pollSeconds: number;
}

/** Seconds since the handoff was requested (epoch milliseconds), never negative. */
export const secondsWaiting = (requestedMs: number, nowMs: number) => Math.max(0, Math.floor((nowMs - requestedMs) / 1000));

const waitingSeconds = (row: InboxRow, now: Date) =>
  row.handoff_state === 'handoff_pending' && row.handoff_requested_at ? secondsWaiting(new Date(row.handoff_requested_at).getTime(), now.getTime()) : null;

/** An agent inbox item (docs/api.md "Inbox"). */
export function presentInboxItem(row: InboxRow, userId: number, clock: InboxClock) {
  return {
    id: row.id,
    chatbot: row.chatbot,
    visitor: visitorDisplayName({ name: row.visitor_name, email: row.email, key: row.visitor_key }),
    email: row.email,
    status: row.status,
    channel: row.channel,
    last_at: relativeTime(new Date(row.last_message_at), clock.now),
    preview: row.preview ?? '',
    escalated: row.escalated,
    unread: Number(row.unread),
    resolution: row.resolution,
    tags: row.tags,
    group: row.group,
    handoff_state: row.handoff_state,
    assigned_to: row.assigned_to,
    mine: row.assigned_user_id === userId,
    online: isOnline(row.last_seen_at ? new Date(row.last_seen_at) : null, clock.now.getTime(), clock.pollSeconds),
    waiting_seconds: waitingSeconds(row, clock.now),
  };
}

/** The agent's active conversation: the inbox item's facts plus the thread and what is known of the visitor. */
export function presentActiveConversation(active: ActiveConversation, watchers: Watcher[], userId: number, clock: InboxClock) {
  const { conversation: c, row, chatbot, visitor } = active;
  const item = presentInboxItem(row, userId, clock);
  const meta = c.meta as { page_url?: unknown; referrer?: unknown };
  const text = (...values: unknown[]) => (values.find((value) => typeof value === 'string' && value) as string | undefined) ?? '';
  const time = (iso: string) => displayTime(new Date(iso));
  const contact = capturedContact(c);
  return {
    id: c.publicId,
    status: c.status,
    resolution: c.resolution,
    resolved_at: c.resolvedAt ? time(c.resolvedAt) : null,
    handoff_requested_at: c.handoffRequestedAt ? time(c.handoffRequestedAt) : '',
    escalated: c.escalated,
    resolved_by_ai: c.resolvedByAi,
    events: active.events.map((event) => ({ type: event.type, source: event.source, at: time(event.createdAt) })),
    tags: active.tags,
    tag_suggestions: active.tagSuggestions,
    visitor: item.visitor,
    chatbot: chatbot.name,
    channel: c.channel,
    email: contact.email ?? null,
    phone: contact.phone ?? null,
    page: text(visitor?.page, meta.page_url),
    referrer: text(visitor?.referrer, meta.referrer),
    entry_page: text(visitor?.entryPage, active.journey[0]?.url),
    locale: text(c.locale, visitor?.locale),
    detected_language: text(c.detectedLanguage),
    joined: displayDate(new Date(visitor?.firstSeenAt ?? c.createdAt)),
    msg_count: c.messageCount,
    group: item.group,
    handoff_state: c.handoffState,
    assigned_to: item.assigned_to,
    mine: item.mine,
    online: item.online,
    last_seen: visitor ? time(visitor.lastSeenAt) : '',
    waiting_seconds: item.waiting_seconds,
    device: text(visitor?.device),
    browser: text(visitor?.browser),
    os: text(visitor?.os),
    country: text(visitor?.country),
    timezone: text(c.timezone, visitor?.timezone),
    page_views: visitor?.pageViews ?? 0,
    prechat: c.prechat,
    prechat_greeting: prechatOf(chatbot).greeting,
    journey: active.journey.map((view) => ({ url: view.url, at: view.viewedAt ? time(view.viewedAt) : null })),
    ...presentRevenue({ cents: c.revenueCents === null ? null : Number(c.revenueCents), currency: c.revenueCurrency ?? DEFAULT_CURRENCY }),
    summary: c.summary ?? '',
    summary_at: c.summaryAt ? time(c.summaryAt) : '',
    intent: c.intent ?? '',
    lead_id: active.lead?.id ?? null,
    lead_status: active.lead?.status ?? null,
    messages: active.messages.map((message) => presentThreadMessage({ id: message.id, role: message.role, content: message.content, at: new Date(message.createdAt), rating: message.rating })),
    notes: active.notes.map((note) => presentNote({ id: note.id, body: note.body, at: new Date(note.createdAt) }, note.author ?? '')),
    watchers,
    watching: watchers.some((watcher) => watcher.id === userId),
    routed_by: c.routedBy,
    blocked: c.blocked,
    abuse_strikes: c.abuseStrikes,
  };
}
