import { Conversation } from '../../models';
import { plainRows } from '../../db/plainRows';
import { encodeCursor } from './inboxCursor';
import { GROUP_SQL } from './groups';
import { LIST_LIMIT, pageStatement, TOTALS_SQL, totalsOf, type InboxListing, type InboxTotals, type TotalsRow } from './listInbox';

/**
 * The inbox list (no open thread) as JSON text, for the lean path (src/surfaces/agent/leanInbox.ts,
 * through src/presenters/inboxListText.ts). Each row comes from Postgres as two fragments of the item's
 * compact JSON, written exactly as `JSON.stringify(presentInboxItem(row, ...))` writes them (the
 * same keys in the same order, `to_json` for every value: Postgres escapes strings as JSON.stringify
 * does), with the three time-dependent values left to the node: `last_at`, `online` and
 * `waiting_seconds`, from the row's times in epoch milliseconds. Why: the node's CPU per list
 * response was most of it parsing the page's JSON (36 KB, every key repeated per row), building
 * the items and stringifying them again (docs/performance.md, "Fourth round"). The generic path
 * (src/presenters/inbox.ts) stays the definition; `test/integration/agentInboxLeanList.test.ts`
 * holds this one to it byte for byte.
 */

/** A nullable SQL value as JSON text (`null` for NULL). */
const json = (expression: string) => `COALESCE(to_json(${expression})::text, 'null')`;
/** Epoch milliseconds, as `new Date(<Postgres's ISO text>).getTime()` reads them (truncated, not rounded). */
const epochMs = (expression: string) => `floor(extract(epoch FROM ${expression}) * 1000)::bigint`;

/** `visitorDisplayName` (src/domain/visitors/displayName.ts): the name, else the email, else `Visitor` and the key's last six letters or digits. */
const VISITOR_SQL = `COALESCE(NULLIF(c.visitor_name, ''), NULLIF(c.visitor_email, ''),
  'Visitor ' || COALESCE(NULLIF(upper(right(regexp_replace(c.visitor_key, '[^a-zA-Z0-9]', '', 'g'), 6) COLLATE "C"), ''), '#'))`;

const TAGS_SQL = `COALESCE((SELECT '[' || string_agg('{"id":' || t.id || ',"name":' || to_json(t.name)::text || ',"color":' || to_json(t.color)::text || '}', ',' ORDER BY t.name) || ']'
                     FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                    WHERE ct.conversation_id = c.id), '[]')`;

/** The select list of a row: `head` up to `"last_at":`, `tail` from `,"preview":` up to `"online":`. */
const TEXT_COLUMNS = `
  '{"id":' || ${json('c.public_id')} || ',"chatbot":' || ${json('b.name')} || ',"visitor":' || ${json(VISITOR_SQL)}
    || ',"email":' || ${json('c.visitor_email')} || ',"status":' || ${json('c.status')} || ',"channel":' || ${json('c.channel')} || ',"last_at":' AS head,
  ${epochMs('c.last_message_at')} AS last_ms,
  ',"preview":' || ${json(`COALESCE(c.last_message_preview, '')`)} || ',"escalated":' || ${json('c.escalated')} || ',"unread":' || ${json('c.unread_count')}
    || ',"resolution":' || ${json('c.resolution')} || ',"tags":' || ${TAGS_SQL} || ',"group":' || ${json(GROUP_SQL)}
    || ',"handoff_state":' || ${json('c.handoff_state')} || ',"assigned_to":' || ${json('u.name')}
    || ',"mine":' || CASE WHEN c.assigned_user_id = $2 THEN 'true' ELSE 'false' END || ',"online":' AS tail,
  ${epochMs('v.last_seen_at')} AS seen_ms,
  CASE WHEN c.handoff_state = 'handoff_pending' THEN ${epochMs('c.handoff_requested_at')} END AS waiting_ms`;

/** The columns of a row of the statement, in order (`rowMode: 'array'`, every value as Postgres's text). */
const At = { PositionUs: 0, PositionId: 1, Head: 2, LastMs: 3, Tail: 4, SeenMs: 5, WaitingMs: 6, Totals: 7 } as const;
const TOTALS_KEYS = ['all', 'waiting', 'mine', 'team', 'ai', 'resolved', 'unread'] as const;

/**
 * The parts of the list's statement: the page (a CTE, `page`) and the select of its rows, one per
 * listed conversation (one more than the page if there is more), each with the counts; one row of
 * counts alone for an empty page. Unordered: the statement orders them by position, newest first.
 */
export async function listTextParts(companyId: number, userId: number, listing: InboxListing): Promise<{ page: string; rows: string; values: unknown[] }> {
  const page = await pageStatement(companyId, userId, listing, TEXT_COLUMNS);
  const rows = `SELECT page.*, ${TOTALS_KEYS.map((key) => `totals."${key}"`).join(', ')} FROM (${TOTALS_SQL}) totals LEFT JOIN page ON true`;
  return { page: page.text, rows, values: page.values };
}

/** The order of the list's rows (the page's newest first). */
export const LIST_TEXT_ORDER = `position_us DESC, position_id DESC`;

async function listTextStatement(companyId: number, userId: number, listing: InboxListing) {
  const { page, rows, values } = await listTextParts(companyId, userId, listing);
  return { text: `WITH page AS (${page})\n    ${rows}\n     ORDER BY ${LIST_TEXT_ORDER}`, values };
}

/** A listed conversation's item as JSON text around the three values of the request's clock (epoch milliseconds). */
export interface InboxItemText {
  /** From `{` up to `"last_at":`. */
  head: string;
  lastMs: number;
  /** From `,"preview":` up to `"online":`. */
  tail: string;
  seenMs: number | null;
  /** When the handoff was requested, for a conversation waiting for a person. */
  waitingMs: number | null;
}

export interface InboxListText extends InboxTotals {
  items: InboxItemText[];
  nextCursor: string | null;
}

/** The page and the counts, each item as JSON text (see the module's comment; src/presenters/inboxListText.ts writes the answer). */
export async function readInboxListText(companyId: number, userId: number, listing: InboxListing): Promise<InboxListText> {
  const { text, values } = await listTextStatement(companyId, userId, listing);
  return listTextOf(await plainRows<Array<string | null>>(Conversation.sequelize!, text, values, { prepared: listing.q === undefined, asTextArrays: true }));
}

/**
 * The list from the rows of its statement (`listTextParts`, ordered), each row's columns from
 * `offset` on (a statement that returns more beside them puts its own first).
 */
export function listTextOf(rows: ReadonlyArray<ReadonlyArray<string | null>>, offset = 0): InboxListText {
  const first = rows[0];
  const totals = {} as TotalsRow;
  TOTALS_KEYS.forEach((key, i) => (totals[key] = first?.[offset + At.Totals + i] ?? null));
  const listed = first?.[offset + At.Head] == null ? 0 : Math.min(rows.length, LIST_LIMIT);
  const msOf = (value: string | null) => (value === null ? null : Number(value));
  const items: InboxItemText[] = [];
  for (let i = 0; i < listed; i++) {
    const row = rows[i]!;
    items.push({
      head: row[offset + At.Head]!,
      lastMs: Number(row[offset + At.LastMs]),
      tail: row[offset + At.Tail]!,
      seenMs: msOf(row[offset + At.SeenMs] ?? null),
      waitingMs: msOf(row[offset + At.WaitingMs] ?? null),
    });
  }
  const last = rows.length > LIST_LIMIT ? rows[LIST_LIMIT - 1]! : undefined;
  return {
    items,
    nextCursor: last ? encodeCursor({ atMicros: Number(last[offset + At.PositionUs]), id: Number(last[offset + At.PositionId]) }) : null,
    ...totalsOf(totals),
  };
}

/** How many columns a row of the list has (`listTextParts`'s select). */
export const LIST_TEXT_COLUMNS = At.Totals + TOTALS_KEYS.length;
