import { QueryTypes } from 'sequelize';
import { Conversation } from '../../models';

/**
 * The inbox's `q`: a conversation matches when the text occurs, in any case, in the visitor's name,
 * the visitor's email or any of its messages. Substring matching (ILIKE) rather than full-text
 * words, so that part of an email address or an order number finds its conversation too; the
 * trigram indexes of migration 0007 answer it without reading every message.
 */

/** Shorter text has no trigram, so no index could answer it: every message would be read. */
export const SEARCH_MIN_LENGTH = 3;
export const SEARCH_MAX_LENGTH = 100;

/**
 * From this many matching rows on, a search is "common": walking the list in order and testing each
 * conversation finds a page sooner than gathering every match (docs/performance.md, `inbox`).
 */
const COMMON_MATCHES = 2000;

/** The ILIKE pattern for `q`: its own `%`, `_` and `\` match themselves. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, '\\$&')}%`;
}

/** Whether the pattern matches at least COMMON_MATCHES names, emails or messages of the workspace (stops counting there). */
export async function isCommonSearch(companyId: number, pattern: string): Promise<boolean> {
  const [row] = await Conversation.sequelize!.query<{ n: string }>(
    `SELECT count(*) AS n FROM (
       SELECT 1 FROM messages WHERE company_id = $1 AND content ILIKE $2
       UNION ALL
       SELECT 1 FROM conversations WHERE company_id = $1 AND (visitor_name ILIKE $2 OR visitor_email ILIKE $2)
       LIMIT ${COMMON_MATCHES}) found`,
    { bind: [companyId, pattern], type: QueryTypes.SELECT },
  );
  return Number(row?.n ?? 0) >= COMMON_MATCHES;
}

/**
 * SQL for "conversation `c` matches the pattern bound as `$<param>`", within the workspace `$1`, in
 * the form that suits how often it matches:
 * - rare: the matching ids first (a union of two trigram index scans), then the page cut from them;
 *   walking the list instead would test every open conversation before finding the few.
 * - common: the list walked in its order, each conversation tested on its own messages until the
 *   page is full; gathering the matches first would read nearly every message. `OFFSET 0` keeps the
 *   test per row: without it Postgres hashes the whole subquery's result before the first row.
 */
export function searchSql(param: number, common: boolean): string {
  const p = `$${param}`;
  if (common) {
    return `(c.visitor_name ILIKE ${p} OR c.visitor_email ILIKE ${p}
      OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.content ILIKE ${p} OFFSET 0))`;
  }
  return `c.id IN (
    SELECT s.id FROM conversations s WHERE s.company_id = $1 AND (s.visitor_name ILIKE ${p} OR s.visitor_email ILIKE ${p})
    UNION
    SELECT m.conversation_id FROM messages m WHERE m.company_id = $1 AND m.content ILIKE ${p})`;
}
