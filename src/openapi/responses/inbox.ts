import { z } from 'zod';
import { INTENTS } from '../../domain/assist/parseSummaryAnswer';
import { INBOX_GROUPS } from '../../domain/inbox/groups';
import { CURSOR_PATTERN } from '../../domain/inbox/inboxCursor';
import { conversationStatus, handoffState, threadMessage } from './conversations';
import { count, displayDate, displayTime, displayTimeOrEmpty, id, relativeTime, uuid } from './formats';
import { named } from './named';

const group = z.enum(INBOX_GROUPS);
export const tag = named('Tag', z.object({ id, name: z.string(), color: z.string() }), 'A tag of the workspace catalogue.');


export const inboxItem = named(
  'InboxItem',
  z.object({
    id: uuid,
    chatbot: z.string(),
    visitor: z.string().describe('name, else email, else "Visitor" plus the end of the visitor id'),
    email: z.string().nullable(),
    status: conversationStatus,
    channel: z.string(),
    last_at: relativeTime,
    preview: z.string(),
    escalated: z.boolean(),
    unread: count,
    resolution: z.string().nullable(),
    tags: z.array(tag),
    group,
    handoff_state: handoffState,
    assigned_to: z.string().nullable(),
    mine: z.boolean(),
    online: z.boolean(),
    waiting_seconds: count.nullable(),
  }),
  'A row of the agent inbox.',
);

export const activeConversation = named(
  'ActiveConversation',
  z.object({
    id: uuid,
    status: conversationStatus,
    resolution: z.string().nullable(),
    resolved_at: displayTime.nullable(),
    handoff_requested_at: displayTimeOrEmpty,
    escalated: z.boolean(),
    resolved_by_ai: z.boolean().describe('Closed by the AI alone: its idle close, or a reset after its answer (docs/api.md "Conversations").'),
    events: z.array(z.object({ type: z.string(), source: z.enum(['visitor', 'agent', 'ai', 'system']), at: displayTime })),
    tags: z.array(z.object({ id, name: z.string(), color: z.string(), source: z.enum(['agent', 'ai']) })),
    tag_suggestions: z.array(z.object({ id, name: z.string(), confidence: z.number().min(0).max(1), reason: z.string() })),
    visitor: z.string(),
    chatbot: z.string(),
    channel: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    page: z.string(),
    referrer: z.string(),
    entry_page: z.string(),
    locale: z.string(),
    detected_language: z
      .string()
      .regex(/^(?:[a-z]{2})?$/)
      .describe('ISO 639-1 code of the language of the visitor\'s messages, detected once they hold 20 letters and again with each message; `""` before.'),
    joined: displayDate,
    msg_count: count,
    group,
    handoff_state: handoffState,
    assigned_to: z.string().nullable(),
    mine: z.boolean(),
    online: z.boolean(),
    last_seen: displayTimeOrEmpty,
    waiting_seconds: count.nullable(),
    device: z.string(),
    browser: z.string(),
    os: z.string(),
    country: z.string(),
    timezone: z.string().describe('The IANA zone the widget reported with the visitor\'s messages, else with their heartbeats (`Europe/Paris`); `""` when unknown.'),
    page_views: count,
    prechat: z.array(z.object({ field: z.string(), value: z.string() })),
    prechat_greeting: z.string(),
    journey: z.array(z.object({ url: z.string(), at: displayTime.nullable() })),
    revenue_cents: z.int().min(0),
    revenue_amount: z.number().min(0),
    revenue_currency: z.string().regex(/^[A-Z]{3}$/),
    revenue_label: z.string(),
    summary: z.string(),
    summary_at: displayTimeOrEmpty,
    intent: z.enum([...INTENTS, '']).describe('What the visitor wants, named by the latest summary call (same call, no extra cost); `""` before the first.'),
    lead_id: id.nullable(),
    lead_status: z.enum(['new', 'contacted', 'won', 'lost']).nullable(),
    messages: z.array(threadMessage),
    notes: z.array(z.object({ id, body: z.string(), author: z.string(), at: displayTime })),
    watchers: z
      .array(z.object({ id, name: z.string() }))
      .describe('Agents who have the conversation open now (a socket subscribed to its `private-conversation.<uuid>`, on any server), each once, by name.'),
    watching: z.boolean().describe('true when the caller is one of `watchers`.'),
    routed_by: z.string().describe('`invite` when an agent\'s invite opened the conversation, else `ai` (automatic routing does not exist yet).'),
    blocked: z.boolean().describe("true while the visitor is blocked (an agent's block, or the flood rule's third strike): their messages are refused"),
    abuse_strikes: count.describe('visitor messages refused for flooding (more than 10 in 60 s); 3 block the conversation, an unblock resets it to 0'),
  }),
  'The open thread of the inbox: everything the agent sees about one conversation.',
);

export const inboxPage = named(
  'Inbox',
  z.object({
    conversations: z.array(inboxItem),
    counts: z.object({ all: count, ai: count, human: count, resolved: count, unread: count }),
    groups: z.object({ waiting: count, mine: count, team: count, ai: count, resolved: count }),
    listed: count,
    list_limit: count,
    next_cursor: z.string().regex(CURSOR_PATTERN).nullable().describe('Pass as `before` for the next page; null when this page reaches the end (always null for a deep link).'),
    active: activeConversation.nullable(),
  }),
  'One filtered inbox page (a search narrows it), counts over the whole inbox, and the open thread.',
);
