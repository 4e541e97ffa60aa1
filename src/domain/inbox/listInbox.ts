import { Conversation } from '../../models';
import { plainRows } from '../../db/plainRows';
import { filterSql, GROUP_SQL, type InboxFilter, type InboxGroup } from './groups';
import { decodeCursor, encodeCursor } from './inboxCursor';
import { containsPattern, isCommonSearch, searchSql } from './inboxSearch';

/** At most this many rows per inbox response (`list_limit`). */
export const LIST_LIMIT = 60;

/**
 * One conversation as the list shows it. Rows reach the node as JSON built by Postgres (one value per
 * page, parsed once, instead of a type parser per column of every row), so times are ISO 8601 strings.
 */
export interface InboxRow {
  id: string;
  chatbot: string;
  visitor_key: string;
  visitor_name: string | null;
  email: string | null;
  status: string;
  channel: string;
  last_message_at: string;
  preview: string | null;
  escalated: boolean;
  unread: number;
  resolution: string | null;
  group: InboxGroup;
  handoff_state: string;
  assigned_user_id: number | null;
  assigned_to: string | null;
  last_seen_at: string | null;
  handoff_requested_at: string | null;
  tags: Array<{ id: number; name: string; color: string }>;
}

export interface InboxTotals {
  counts: { all: number; ai: number; human: number; resolved: number; unread: number };
  groups: Record<InboxGroup, number>;
}

/** The select list of an inbox row; `c`, `b`, `u` and `v` are joined by `ROW_FROM`. `$2` is the calling agent. */
export const ROW_COLUMNS = `
         c.public_id AS id, b.name AS chatbot, c.visitor_key, c.visitor_name, c.visitor_email AS email, c.status, c.channel,
         c.last_message_at, c.last_message_preview AS preview, c.escalated, c.unread_count AS unread, c.resolution,
         ${GROUP_SQL} AS "group", c.handoff_state, c.assigned_user_id, u.name AS assigned_to, v.last_seen_at, c.handoff_requested_at,
         COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.name)
                     FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                    WHERE ct.conversation_id = c.id), '[]') AS tags`;

/** What a row of `c` (conversations) joins for the list: its chatbot `b`, assignee `u` and visitor `v`. */
const ROW_JOINS = `
    JOIN chatbots b ON b.id = c.chatbot_id
    LEFT JOIN users u ON u.id = c.assigned_user_id
    LEFT JOIN visitors v ON v.company_id = c.company_id AND v.visitor_key = c.visitor_key`;

export const ROW_FROM = `
    FROM conversations c${ROW_JOINS}`;

/** The row's place in the list order, exact to the microsecond (a Date would drop them). */
const POSITION_COLUMNS = `(extract(epoch FROM c.last_message_at) * 1000000)::bigint AS position_us, c.id AS position_id`;

/**
 * Counts over the whole inbox, whatever the filter, as one row. Read from `inbox_counts` (migration
 * 0009): the workspace's conversations counted per combination of the columns the groups read, kept
 * exact by a trigger on every write, so the groups come from a few dozen rows instead of every
 * conversation. `assigned_user_id` 0 there means nobody.
 */
export const TOTALS_SQL = `
     SELECT sum(n) FILTER (WHERE g <> 'resolved') AS "all",
            sum(n) FILTER (WHERE g = 'waiting') AS waiting, sum(n) FILTER (WHERE g = 'mine') AS mine,
            sum(n) FILTER (WHERE g = 'team') AS team, sum(n) FILTER (WHERE g = 'ai') AS ai,
            sum(n) FILTER (WHERE g = 'resolved') AS resolved,
            sum(n) FILTER (WHERE g <> 'resolved' AND unread) AS unread
       FROM (SELECT ${GROUP_SQL} AS g, c.unread, c.n
               FROM (SELECT status, handoff_state, escalated, NULLIF(assigned_user_id, 0) AS assigned_user_id, unread, n
                       FROM inbox_counts WHERE company_id = $1) c) grouped`;

export type TotalsRow = Record<'all' | 'waiting' | 'mine' | 'team' | 'ai' | 'resolved' | 'unread', string | number | null>;

export function totalsOf(row: TotalsRow | undefined): InboxTotals {
  const n = (key: keyof TotalsRow) => Number(row?.[key] ?? 0);
  return {
    counts: { all: n('all'), ai: n('ai'), human: n('mine') + n('team'), resolved: n('resolved'), unread: n('unread') },
    groups: { waiting: n('waiting'), mine: n('mine'), team: n('team'), ai: n('ai'), resolved: n('resolved') },
  };
}

/** Which page: a filter, optionally a search (`q`) and where the previous page ended (`before`, a cursor). */
export interface InboxListing {
  filter: InboxFilter;
  q?: string;
  before?: string;
}

export interface InboxPage {
  rows: InboxRow[];
  /** Where the next page starts; null when this page reaches the end of the list. */
  nextCursor: string | null;
}

export interface Statement {
  text: string;
  values: unknown[];
}

export interface PositionedRow extends InboxRow {
  position_us: number;
  position_id: number;
}

/**
 * The SQL of one page of the inbox under a filter, most recent activity first. Keyset
 * paging on (last_message_at, id), the order of the list and of its indexes: a page is read straight
 * from the index, however deep, and conversations that arrive meanwhile (newer than the cursor)
 * neither repeat nor push rows into the next page. One row more than the page tells whether there
 * is more. A search first asks how common its text is (its own query), to choose the plan.
 * `columns`: the select list beside the position (the lean path's differs: src/domain/inbox/listText.ts).
 */
export async function pageStatement(companyId: number, userId: number, listing: InboxListing, columns = ROW_COLUMNS): Promise<Statement> {
  const values: unknown[] = [companyId, userId];
  const where = [`c.company_id = $1`, filterSql(listing.filter)];
  if (listing.q !== undefined) {
    const pattern = containsPattern(listing.q);
    values.push(pattern);
    where.push(searchSql(values.length, await isCommonSearch(companyId, pattern)));
  }
  if (listing.before !== undefined) {
    const { atMicros, id } = decodeCursor(listing.before);
    values.push(atMicros, id);
    where.push(`(c.last_message_at, c.id) < ('epoch'::timestamptz + $${values.length - 1}::bigint * interval '1 microsecond', $${values.length}::bigint)`);
  }
  // The page's conversations are cut first (LIMIT on `conversations` alone), then joined and written:
  // whatever Postgres estimates for the workspace, the joins, the tags and the text are made for 61 rows
  // (a plan for a workspace estimated tiny otherwise joins and sorts all of it first: docs/performance.md,
  // "Agent inbox", eighth round).
  const order = `c.last_message_at DESC, c.id DESC`;
  const text = `SELECT ${POSITION_COLUMNS}, ${columns}
    FROM (SELECT c.* FROM conversations c WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${LIST_LIMIT + 1}) c${ROW_JOINS}
    ORDER BY ${order}`;
  return { text, values };
}

/** A page from its rows as `pageStatement` gives them (one more than the page, if there is more). */
export function pageOf(rows: PositionedRow[]): InboxPage {
  const last = rows.length > LIST_LIMIT ? rows[LIST_LIMIT - 1]! : undefined;
  return {
    rows: rows.slice(0, LIST_LIMIT).map(({ position_us: _at, position_id: _id, ...row }) => row),
    nextCursor: last ? encodeCursor({ atMicros: last.position_us, id: last.position_id }) : null,
  };
}

/** The counts alone (an inbox response reads them with its page: src/domain/inbox/readInbox.ts). */
export async function inboxTotals(companyId: number, userId: number): Promise<InboxTotals> {
  const [row] = await plainRows<TotalsRow>(Conversation.sequelize!, TOTALS_SQL, [companyId, userId]);
  return totalsOf(row);
}
