import type { Chatbot, Conversation, Lead, Message, Visitor } from '../../models';
import { tagSuggestionsJsonSql, tagSuggestionView, type StoredTagSuggestion, type TagSuggestionView } from '../assist/tagSuggestionsOf';
import { ROW_COLUMNS, ROW_FROM, type InboxRow } from './listInbox';

/** How much of a thread the agent app receives at once; older lines stay in the database. */
export const THREAD_MESSAGES = 200;
const JOURNEY_PAGES = 20;

/** Times arrive as Postgres writes them in JSON: ISO 8601 strings. */
type Iso = string;

/** The conversation's own columns the open thread shows (model attribute names). */
export type ThreadConversation = Pick<
  Conversation,
  | 'id' | 'publicId' | 'status' | 'resolution' | 'escalated' | 'resolvedByAi' | 'channel' | 'meta' | 'locale' | 'detectedLanguage'
  | 'messageCount' | 'handoffState' | 'timezone' | 'prechat' | 'revenueCents' | 'revenueCurrency' | 'summary' | 'intent'
  | 'routedBy' | 'blocked' | 'abuseStrikes' | 'visitorName' | 'visitorEmail' | 'visitorPhone' | 'unreadCount'
> & { resolvedAt: Iso | null; handoffRequestedAt: Iso | null; summaryAt: Iso | null; createdAt: Iso };

export type ThreadVisitor = Pick<Visitor, 'page' | 'referrer' | 'entryPage' | 'locale' | 'device' | 'browser' | 'os' | 'country' | 'timezone' | 'pageViews'> & {
  firstSeenAt: Iso;
  lastSeenAt: Iso;
};

/** Everything the agent app shows beside an open thread. */
export interface ActiveConversation {
  conversation: ThreadConversation;
  row: InboxRow;
  chatbot: Pick<Chatbot, 'name' | 'prechat' | 'branding'>;
  visitor: ThreadVisitor | null;
  events: Array<{ type: string; source: string; createdAt: Iso }>;
  tags: Array<{ id: number; name: string; color: string; source: string }>;
  tagSuggestions: TagSuggestionView[];
  lead: Pick<Lead, 'id' | 'status'> | null;
  /** The newest THREAD_MESSAGES, oldest first. */
  messages: Array<Pick<Message, 'id' | 'role' | 'content' | 'rating'> & { createdAt: Iso }>;
  notes: Array<{ id: number; body: string; createdAt: Iso; author: string | null }>;
  /** The visitor's last JOURNEY_PAGES page views, oldest first. */
  journey: Array<{ url: string; viewedAt: Iso | null }>;
}

/** `json_build_object` arguments: each model attribute from its column. */
const fields = (table: string, columns: Record<string, string>) =>
  Object.entries(columns)
    .map(([attribute, column]) => `'${attribute}', ${table}.${column}`)
    .join(', ');

const CONVERSATION_FIELDS = fields('c', {
  id: 'id', publicId: 'public_id', status: 'status', resolution: 'resolution', resolvedAt: 'resolved_at', handoffRequestedAt: 'handoff_requested_at',
  escalated: 'escalated', resolvedByAi: 'resolved_by_ai', channel: 'channel', meta: 'meta', locale: 'locale', detectedLanguage: 'detected_language',
  createdAt: 'created_at', messageCount: 'message_count', handoffState: 'handoff_state', timezone: 'timezone', prechat: 'prechat',
  revenueCents: 'revenue_cents', revenueCurrency: 'revenue_currency', summary: 'summary', summaryAt: 'summary_at', intent: 'intent',
  routedBy: 'routed_by', blocked: 'blocked', abuseStrikes: 'abuse_strikes', visitorName: 'visitor_name', visitorEmail: 'visitor_email',
  visitorPhone: 'visitor_phone', unreadCount: 'unread_count',
});

const VISITOR_FIELDS = fields('v', {
  page: 'page', referrer: 'referrer', entryPage: 'entry_page', locale: 'locale', firstSeenAt: 'first_seen_at', lastSeenAt: 'last_seen_at',
  device: 'device', browser: 'browser', os: 'os', country: 'country', timezone: 'timezone', pageViews: 'page_views',
});

/**
 * SQL for the open thread with everything beside it, one JSON value per part (it was fifteen
 * queries): the conversation of the workspace (`$1`) whose public id is parameter `publicIdParam`;
 * every other part hangs off that row. `$2` is the calling agent, for the row's group.
 */
export const threadSql = (publicIdParam: number) => `
  SELECT json_build_object(${CONVERSATION_FIELDS}) AS conversation,
         to_json(r) AS row,
         json_build_object('name', b.name, 'prechat', b.prechat, 'branding', b.branding) AS chatbot,
         CASE WHEN v.id IS NULL THEN NULL ELSE json_build_object(${VISITOR_FIELDS}) END AS visitor,
         COALESCE((SELECT json_agg(json_build_object('type', e.type, 'source', e.source, 'createdAt', e.created_at) ORDER BY e.id)
                     FROM conversation_events e WHERE e.conversation_id = c.id), '[]') AS events,
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color, 'source', ct.source) ORDER BY ct.created_at, t.id)
                     FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = c.id), '[]') AS tags,
         ${tagSuggestionsJsonSql('c.id')} AS tag_suggestions,
         (SELECT json_build_object('id', l.id, 'status', l.status) FROM leads l WHERE l.conversation_id = c.id AND l.company_id = c.company_id) AS lead,
         COALESCE((SELECT json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content, 'rating', m.rating, 'createdAt', m.created_at) ORDER BY m.id)
                     FROM (SELECT id, role, content, rating, created_at FROM messages WHERE conversation_id = c.id ORDER BY id DESC LIMIT ${THREAD_MESSAGES}) m), '[]') AS messages,
         COALESCE((SELECT json_agg(json_build_object('id', n.id, 'body', n.body, 'createdAt', n.created_at, 'author', a.name) ORDER BY n.id)
                     FROM notes n LEFT JOIN users a ON a.id = n.user_id WHERE n.conversation_id = c.id), '[]') AS notes,
         COALESCE((SELECT json_agg(json_build_object('url', p.url, 'viewedAt', p.viewed_at) ORDER BY p.viewed_at, p.id)
                     FROM (SELECT id, url, viewed_at FROM page_views WHERE visitor_id = v.id ORDER BY viewed_at DESC, id DESC LIMIT ${JOURNEY_PAGES}) p), '[]') AS journey
    ${ROW_FROM}
    CROSS JOIN LATERAL (SELECT ${ROW_COLUMNS}) r
   WHERE c.company_id = $1 AND c.public_id = $${publicIdParam}`;

/** The thread as `threadSql` gives it (one JSON object). */
export type StoredThread = Omit<ActiveConversation, 'tagSuggestions'> & { tag_suggestions: StoredTagSuggestion[] };

export function activeConversationOf(stored: StoredThread): ActiveConversation {
  const { tag_suggestions: suggestions, ...thread } = stored;
  return { ...thread, tagSuggestions: suggestions.map(tagSuggestionView) };
}
