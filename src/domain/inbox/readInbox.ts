import { Conversation } from '../../models';
import { plainRows } from '../../db/plainRows';
import { activeConversationOf, threadSql, type ActiveConversation, type StoredThread } from './activeConversation';
import { pageOf, pageStatement, TOTALS_SQL, totalsOf, type InboxListing, type InboxPage, type InboxTotals, type PositionedRow, type Statement, type TotalsRow } from './listInbox';

/** What one inbox response shows. */
export interface InboxRead extends InboxPage, InboxTotals {
  thread: ActiveConversation | null;
}

/**
 * The statement of one inbox response: the page (none for a deep link, `listing` null), the counts
 * over the whole inbox, and the open thread (`publicId`, already known to be a uuid), as one row.
 * One statement is one round trip and one snapshot: the list, the counts and the thread always
 * agree (an unread thread is not shown read in one and unread in the other). The page and the
 * thread arrive as JSON built by Postgres, parsed once, instead of a type parser per column.
 */
export async function inboxStatement(companyId: number, userId: number, listing: InboxListing | null, publicId: string | null): Promise<Statement> {
  const page = listing ? await pageStatement(companyId, userId, listing) : null;
  const values = page ? page.values : [companyId, userId];
  const parts: string[] = [];
  const ctes: string[] = [];
  if (page) {
    ctes.push(`page AS (${page.text})`);
    parts.push(`(SELECT json_agg(page ORDER BY position_us DESC, position_id DESC) FROM page) AS page`);
  }
  if (publicId) {
    values.push(publicId);
    ctes.push(`thread AS (${threadSql(values.length)})`);
    parts.push(`(SELECT to_json(thread) FROM thread) AS thread`);
  }
  const text = `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}SELECT ${[...parts, 'totals.*'].join(', ')} FROM (${TOTALS_SQL}) totals`;
  return { text, values };
}

export async function readInbox(companyId: number, userId: number, listing: InboxListing | null, publicId: string | null): Promise<InboxRead> {
  const { text, values } = await inboxStatement(companyId, userId, listing, publicId);
  const [row] = await plainRows<TotalsRow & { page?: PositionedRow[] | null; thread?: StoredThread | null }>(Conversation.sequelize!, text, values, {
    prepared: isPreparable(listing),
  });
  return { ...pageOf(row?.page ?? []), ...totalsOf(row), thread: row?.thread ? activeConversationOf(row.thread) : null };
}

/**
 * Whether the statement is prepared once per connection (parsed and planned once, not on every
 * request): every one but a search's, whose best form depends on its text (src/domain/inbox/inboxSearch.ts).
 */
const isPreparable = (listing: InboxListing | null) => listing?.q === undefined;
