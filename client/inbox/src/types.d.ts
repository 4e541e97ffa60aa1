// The agent API's shapes as this app reads them (docs/api.md "Agent app", `/openapi.json`).

export type Filter = 'all' | 'waiting' | 'mine' | 'team' | 'ai' | 'human' | 'resolved';

export interface Tag {
  id: number;
  name: string;
  color: string;
}

export interface Agent {
  id: number;
  name: string;
  email: string;
  role: string;
  avatar: string;
}

export interface Session {
  token: string;
  expires_at: string;
  user: Agent;
  company: { id: number; name: string; plan: string };
}

export interface InboxItem {
  id: string;
  chatbot: string;
  visitor: string;
  email: string | null;
  status: string;
  last_at: string;
  preview: string;
  escalated: boolean;
  unread: number;
  tags: Tag[];
  group: string;
  handoff_state: string;
  assigned_to: string | null;
  mine: boolean;
  online: boolean;
  waiting_seconds: number | null;
}

export interface ThreadMessage {
  id: number;
  role: string;
  content: string;
  at: string;
  /** The visitor's thumbs up or down on an AI answer (absent on lines from the socket). */
  rating?: 'up' | 'down' | null;
}

export interface Note {
  id: number;
  body: string;
  author: string;
  at: string;
}

export interface Active extends Omit<InboxItem, 'preview' | 'last_at' | 'unread' | 'tags'> {
  resolution: string | null;
  channel: string;
  phone: string | null;
  page: string;
  referrer: string;
  locale: string;
  joined: string;
  last_seen: string;
  device: string;
  browser: string;
  os: string;
  country: string;
  timezone: string;
  page_views: number;
  prechat: Array<{ field: string; value: string }>;
  journey: Array<{ url: string; at: string | null }>;
  summary: string;
  intent: string;
  revenue_cents: number;
  revenue_currency?: string;
  revenue_label: string;
  lead_id: number | null;
  lead_status: string | null;
  blocked: boolean;
  abuse_strikes: number;
  watchers: Array<{ id: number; name: string }>;
  tags: Array<Tag & { source: string }>;
  tag_suggestions: Array<{ id: number; name: string; confidence: number; reason: string }>;
  messages: ThreadMessage[];
  notes: Note[];
}

export interface Counts {
  counts: { all: number; ai: number; human: number; resolved: number; unread: number };
  groups: { waiting: number; mine: number; team: number; ai: number; resolved: number };
}

export interface InboxPage extends Counts {
  conversations: InboxItem[];
  listed: number;
  list_limit: number;
  next_cursor: string | null;
  active: Active | null;
}

export interface Canned {
  id: number;
  title: string;
  shortcut: string;
  body: string;
}

export interface LiveVisitor {
  id: string;
  chatbot: string;
  chatbot_id: number;
  page: string;
  title: string;
  country: string;
  device: string;
  browser: string;
  os: string;
  page_views: number;
  last_seen: string;
  conversation_id: string | null;
}

export interface LiveVisitors {
  enabled: boolean;
  poll_seconds: number;
  visitors: LiveVisitor[];
  total: number;
}

/** What every realtime event carries (docs/api.md "Realtime"). */
export interface Envelope {
  channel: string;
  event: string;
  data: Record<string, unknown>;
  seq: number;
}
