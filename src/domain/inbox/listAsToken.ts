import type { TokenAbility } from '../../../config/roles';
import { plainTextArrays } from '../../db/plainRows';
import { Conversation } from '../../models';
import { TOKEN_FROM, tokenColumns, tokenFromRow, type TokenWithOwner } from '../accounts/loadToken';
import type { InboxListing } from './listInbox';
import { LIST_TEXT_COLUMNS, LIST_TEXT_ORDER, listTextOf, listTextParts, type InboxListText } from './listText';

/**
 * The inbox list (no search, no open thread) read in the same statement as the bearer token that
 * asks for it: one round trip instead of two (the token, then the page), for the lean path
 * (src/surfaces/agent/leanInbox.ts). Nothing is cached: the token row, its user and workspace are
 * read in the same snapshot as the page, so a revocation, a suspension or a removal committed before
 * the request is seen by it, on any node, as when the token is read on its own.
 *
 * The statement reads the page only for a token that the checks the node makes would let in (the
 * secret's hash, neither revoked nor expired at the node's `now`, of this surface, neither the user
 * nor the workspace suspended), as that token's agent in that token's workspace: the list's `$1`
 * (workspace) and `$2` (agent) become the token's. The node then checks the token row itself, as
 * every authenticated request does (`isLive`, `admit`): those answers (401, 403) are the same.
 *
 * Postgres: the workspace and the agent are no longer parameters, so its custom plans (made for the
 * workspace's own statistics) cost what the generic plan costs, and it keeps the generic plan after
 * five executions instead of planning the default list on every request: docs/performance.md,
 * "Agent inbox", eighth round.
 */

/** What the statement checks the token against; the node checks the same again on the row. */
export interface TokenCheck {
  tokenId: number;
  /** The SHA-256 of the presented secret, hex, as stored (`hashSecret`). */
  tokenHash: string;
  /** The node's clock, the one it checks the token's expiry with. */
  now: Date;
  ability: TokenAbility;
}

export interface ListAsToken {
  /** The token, its user and workspace; undefined when there is no such token (or user, or workspace). */
  token: TokenWithOwner | undefined;
  /** The list as the token's agent; undefined when the statement did not let the token in. */
  list: InboxListText | undefined;
}

/** The list's parameters `$1` (workspace) and `$2` (agent), wherever the list's SQL names them. */
const OWNER_PARAMETER = /\$([12])(?![0-9])/g;

/**
 * The statement: the list's rows (`kind` 1, their columns, then the token's as NULL) and the token's
 * row (`kind` 0, first: the list's columns as NULL, then the token's and whether it was let in).
 * `$1` the token's id, `$2` its secret's hash, then the page's own values (a cursor), the node's
 * clock and the surface. One text per filter, with or without a cursor: built once, not per request.
 */
async function statementOf(check: TokenCheck, listing: InboxListing): Promise<{ text: string; values: unknown[] }> {
  // The ids are placeholders: the parts' `$1` and `$2` are replaced by the token's own in the text.
  const parts = await listTextParts(0, 0, listing);
  const values = [check.tokenId, check.tokenHash, ...parts.values.slice(2), check.now, check.ability];
  const shape = `${listing.filter}${listing.before === undefined ? '' : ' before'}`;
  let text = texts.get(shape);
  if (text === undefined) texts.set(shape, (text = statementText(parts)));
  return { text, values };
}
const texts = new Map<string, string>();

function statementText(parts: { page: string; rows: string; values: unknown[] }): string {
  const owner = (sql: string) => sql.replace(OWNER_PARAMETER, (_, n: string) => (n === '1' ? '(SELECT company_id FROM owner)' : '(SELECT user_id FROM owner)'));
  const [now, ability] = [`$${parts.values.length + 1}`, `$${parts.values.length + 2}`];
  const { sql: columns, aliases } = tokenColumns();
  const nulls = (n: number) => Array<string>(n).fill('NULL').join(', ');
  return `WITH token AS (
      SELECT ${columns},
             (t.token_hash = $2 AND t.revoked_at IS NULL AND t.expires_at > ${now}::timestamptz AND t.ability = ${ability}
              AND u.suspended_at IS NULL AND co.suspended_at IS NULL) AS admitted
        FROM ${TOKEN_FROM} WHERE t.id = $1),
    owner AS (SELECT "co.id" AS company_id, "u.id" AS user_id FROM token WHERE admitted),
    page AS (${owner(parts.page)})
    SELECT 1 AS kind, list.*, ${nulls(aliases.length + 1)} FROM (${owner(parts.rows)}) list
    UNION ALL
    SELECT 0, ${nulls(LIST_TEXT_COLUMNS)}, token.* FROM token
     ORDER BY kind, ${LIST_TEXT_ORDER}`;
}

/** The token and, when the statement let it in, the list as its agent (see the module's comment). */
export async function readListAsToken(check: TokenCheck, listing: InboxListing): Promise<ListAsToken> {
  // A search first asks how common its text is in the workspace (src/domain/inbox/inboxSearch.ts): it needs the workspace first.
  if (listing.q !== undefined) throw new Error('a search is read after its token, not with it');
  const { text, values } = await statementOf(check, listing);
  const { aliases } = tokenColumns();
  const { rows, parsed } = await plainTextArrays(Conversation.sequelize!, text, values, { prepared: true });
  const tokenRow = rows[0]?.[0] === '0' ? rows[0] : undefined;
  if (!tokenRow) return { token: undefined, list: undefined };
  const first = 1 + LIST_TEXT_COLUMNS;
  const record: Record<string, unknown> = {};
  aliases.forEach((alias, i) => (record[alias] = parsed(first + i, tokenRow[first + i] ?? null)));
  const admitted = tokenRow[first + aliases.length] === 't';
  return { token: tokenFromRow(record), list: admitted ? listTextOf(rows.slice(1), 1) : undefined };
}
