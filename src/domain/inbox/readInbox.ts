import type { TokenAbility } from '../../../config/roles';
import { Conversation } from '../../models';
import { TOKEN_FROM, tokenColumns } from '../accounts/loadToken';
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
export async function inboxStatement(companyId: number, userId: number, listing: InboxListing | null, publicId: string | null, check?: TokenCheck): Promise<Statement> {
  const page = listing ? await pageStatement(companyId, userId, listing) : null;
  const values = page ? page.values : [companyId, userId];
  const parts: string[] = [];
  const ctes: string[] = [];
  // Behind a token check, the page and the thread are only read for a token that lets the agent in.
  const gated = (sql: string) => (check ? `CASE WHEN token.admitted THEN ${sql} END` : sql);
  if (page) {
    ctes.push(`page AS (${page.text})`);
    parts.push(`${gated(`(SELECT json_agg(page ORDER BY position_us DESC, position_id DESC) FROM page)`)} AS page`);
  }
  if (publicId) {
    values.push(publicId);
    ctes.push(`thread AS (${threadSql(values.length)})`);
    parts.push(`${gated(`(SELECT to_json(thread) FROM thread)`)} AS thread`);
  }
  if (check) {
    values.push(check.tokenId, check.tokenHash, check.now, check.ability);
    const [id, hash, now, ability] = [values.length - 3, values.length - 2, values.length - 1, values.length].map((n) => `$${n}`);
    ctes.unshift(`token AS (
      SELECT ${tokenColumns()},
             (t.token_hash = ${hash} AND t.revoked_at IS NULL AND t.expires_at > ${now}::timestamptz AND t.ability = ${ability}
              AND u.suspended_at IS NULL AND co.suspended_at IS NULL AND t.user_id = $2 AND co.id = $1) AS admitted
        FROM ${TOKEN_FROM} WHERE t.id = ${id})`);
    parts.unshift('token.*');
  }
  const text = `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}SELECT ${[...parts, 'totals.*'].join(', ')} FROM (${TOTALS_SQL}) totals${check ? ', token' : ''}`;
  return { text, values };
}

/**
 * A bearer token checked in the inbox's own statement (src/surfaces/agent/leanInbox.ts): its row, its
 * user and workspace come back with the inbox (no row: no such token), and the page and the thread
 * are read only when the token is the agent's (`$2`, of the workspace `$1`), live at `now` and its
 * secret's hash matches. The node then checks the token as every request's authentication does.
 */
export interface TokenCheck {
  tokenId: number;
  /** The SHA-256 of the presented secret, hex, as stored. */
  tokenHash: string;
  now: Date;
  ability: TokenAbility;
}

export async function readInbox(companyId: number, userId: number, listing: InboxListing | null, publicId: string | null): Promise<InboxRead> {
  const { text, values } = await inboxStatement(companyId, userId, listing, publicId);
  const [row] = await plainRows<InboxStatementRow>(Conversation.sequelize!, text, values, { prepared: isPreparable(listing) });
  return inboxReadOf(row);
}

/** What one inbox statement returns. */
export type InboxStatementRow = TotalsRow & { page?: PositionedRow[] | null; thread?: StoredThread | null };

export function inboxReadOf(row: InboxStatementRow | undefined): InboxRead {
  return { ...pageOf(row?.page ?? []), ...totalsOf(row), thread: row?.thread ? activeConversationOf(row.thread) : null };
}

/**
 * Whether the statement is prepared once per connection: every one but a search's, whose best form
 * depends on its text (src/domain/inbox/inboxSearch.ts), which a plan kept for all values would not see.
 */
export const isPreparable = (listing: InboxListing | null) => listing?.q === undefined;
