import type { Sequelize } from 'sequelize';
import { Batched, batchedPer } from '../../db/batched';
import { jsonRows } from '../../db/jsonRows';
import { plainRows } from '../../db/plainRows';

/**
 * What the visitor actor keeps of a `visitors` row and writes back. Times are epoch milliseconds, so
 * a record survives JSON (actor replies) and compares cheaply. Name, email and phone are not here:
 * conversations fill them, and presence writes never touch them.
 */
export interface VisitorRecord {
  /** `visitors.id`; null until the row exists. */
  id: number | null;
  companyId: number;
  visitorKey: string;
  chatbotId: number | null;
  page: string | null;
  title: string | null;
  referrer: string | null;
  entryPage: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  locale: string | null;
  /** The IANA zone the widget reported. */
  timezone: string | null;
  userAgent: string | null;
  pageViews: number;
  firstSeenAt: number | null;
  lastSeenAt: number | null;
}

export interface PageViewRecord {
  companyId: number;
  visitorId: number;
  url: string;
  title: string | null;
  referrer: string | null;
  viewedAt: number;
}

export interface VisitorRow {
  id: string;
  chatbot_id: number | null;
  page: string | null;
  title: string | null;
  referrer: string | null;
  entry_page: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  locale: string | null;
  timezone: string | null;
  user_agent: string | null;
  page_views: number;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** The columns presence owns, in the order of every statement below. */
const COLUMNS =
  'company_id, chatbot_id, visitor_key, page, title, referrer, entry_page, country, device, browser, os, locale, timezone, user_agent, page_views, first_seen_at, last_seen_at';

/** A record for a visitor never seen before. */
export const blankVisitor = (companyId: number, visitorKey: string): VisitorRecord => ({
  id: null,
  companyId,
  visitorKey,
  chatbotId: null,
  page: null,
  title: null,
  referrer: null,
  entryPage: null,
  country: null,
  device: null,
  browser: null,
  os: null,
  locale: null,
  timezone: null,
  userAgent: null,
  pageViews: 0,
  firstSeenAt: null,
  lastSeenAt: null,
});

/** What a record is read from (`VisitorRow`), of the visitor lookup `v`. */
export const VISITOR_COLUMNS = `v.id, v.chatbot_id, v.page, v.title, v.referrer, v.entry_page, v.country, v.device, v.browser, v.os, v.locale, v.timezone,
       v.user_agent, v.page_views, v.first_seen_at, v.last_seen_at`;

/**
 * One visitor by the batch's `k.company_id` and `k.visitor_key`, for a LATERAL join: one lookup in
 * the unique index (why a subquery with LIMIT: LOAD_SQL below).
 */
export const VISITOR_BY_KEY = `(SELECT * FROM visitors v WHERE v.company_id = k.company_id AND v.visitor_key = k.visitor_key LIMIT 1)`;

/**
 * Visitors' rows, many per statement when activations come together (src/db/batched.ts); absent ones
 * are blank. Prepared (parsed once per connection) and read as plain rows, as are the first beat's
 * other statements: their per-call work in Sequelize and in Postgres's parser cost more than the rows.
 * The keys go as one JSON parameter (src/db/jsonRows.ts), the callers' own objects.
 *
 * One index lookup per key, as a LATERAL subquery (its LIMIT keeps Postgres from turning it back into
 * a join): as a plain join, Postgres guessed 100 keys (`json_to_recordset`'s estimate) and hashed them
 * against a full scan of `visitors` for any table under about 16,000 rows, and a prepared statement
 * kept that plan as the table grew, so every batch read the whole table (docs/performance.md,
 * "Arrivals, seventh round"). The key is unique, so LIMIT 1 drops nothing. Exported for
 * test/integration/visitorPlans.test.ts.
 */
export const LOAD_SQL = `SELECT k.n, ${VISITOR_COLUMNS}
  FROM ROWS FROM (json_to_recordset($1::json) AS ("companyId" int, "visitorKey" text)) WITH ORDINALITY AS k(company_id, visitor_key, n)
  CROSS JOIN LATERAL ${VISITOR_BY_KEY} v`;

const loads = batchedPer((sequelize: Sequelize) =>
  new Batched<{ companyId: number; visitorKey: string }, VisitorRecord>(async (keys) => {
    const rows = await plainRows<VisitorRow & { n: string }>(sequelize, LOAD_SQL, [jsonRows(keys)], { prepared: true });
    const found = new Map(rows.map((row) => [Number(row.n) - 1, row]));
    return keys.map(({ companyId, visitorKey }, i) => {
      const row = found.get(i);
      return row ? recordOf(companyId, visitorKey, row) : blankVisitor(companyId, visitorKey);
    });
  }),
);

export function loadVisitor(sequelize: Sequelize, companyId: number, visitorKey: string): Promise<VisitorRecord> {
  return loads(sequelize).call({ companyId, visitorKey });
}

export function recordOf(companyId: number, visitorKey: string, row: VisitorRow): VisitorRecord {
  return {
    id: Number(row.id),
    companyId,
    visitorKey,
    chatbotId: row.chatbot_id,
    page: row.page,
    title: row.title,
    referrer: row.referrer,
    entryPage: row.entry_page,
    country: row.country,
    device: row.device,
    browser: row.browser,
    os: row.os,
    locale: row.locale,
    timezone: row.timezone,
    userAgent: row.user_agent,
    pageViews: row.page_views,
    firstSeenAt: new Date(row.first_seen_at).getTime(),
    lastSeenAt: new Date(row.last_seen_at).getTime(),
  };
}

const UPDATE_SET = `chatbot_id = EXCLUDED.chatbot_id, page = EXCLUDED.page, title = EXCLUDED.title, referrer = EXCLUDED.referrer,
  entry_page = EXCLUDED.entry_page, country = EXCLUDED.country, device = EXCLUDED.device, browser = EXCLUDED.browser, os = EXCLUDED.os,
  locale = EXCLUDED.locale, timezone = EXCLUDED.timezone, user_agent = EXCLUDED.user_agent, page_views = EXCLUDED.page_views,
  first_seen_at = LEAST(visitors.first_seen_at, EXCLUDED.first_seen_at), last_seen_at = EXCLUDED.last_seen_at, updated_at = now()`;

/**
 * The first heartbeat of a visitor with no row: written before the heartbeat is answered (so reads
 * right after see the visitor, and a crash never loses a visitor the widget or an agent was told
 * of), with the entry page view, in one statement. Arrivals that come together share that statement
 * (group commit, src/db/batched.ts): one INSERT of many rows instead of one per visitor. Returns the
 * row's id. A row that appeared meanwhile (another node) is overwritten: this heartbeat is the newest news.
 */
export function insertVisitor(sequelize: Sequelize, visitor: VisitorRecord): Promise<number> {
  return inserts(sequelize).call({ ...visitor });
}

const visitorKeyOf = (v: Pick<VisitorRecord, 'companyId' | 'visitorKey'>) => `${v.companyId}:${v.visitorKey}`;

/**
 * Visitor records sent as the JSON parameter `$1` (src/db/jsonRows.ts), as rows of `alias` in the
 * records' order (`n`): the first beat's insert and the write-behind flush read the same shape.
 */
const recordsAs = (alias: string) => `ROWS FROM (json_to_recordset($1::json) AS ("companyId" int, "chatbotId" int, "visitorKey" text, page text, title text, referrer text,
                  "entryPage" text, country text, device text, browser text, os text, locale text, timezone text, "userAgent" text, "pageViews" int,
                  "firstSeenAt" float8, "lastSeenAt" float8))
           WITH ORDINALITY AS ${alias}(company_id, chatbot_id, visitor_key, page, title, referrer, entry_page, country, device, browser, os, locale, timezone,
                                user_agent, page_views, first_seen_ms, last_seen_ms, n)`;

/** A record's `first_seen_at` (its last sighting when it has none) and `last_seen_at`, from epoch milliseconds. */
const seenAt = (alias: string) => `to_timestamp(COALESCE(${alias}.first_seen_ms, ${alias}.last_seen_ms) / 1000::float8), to_timestamp(${alias}.last_seen_ms / 1000::float8)`;

/**
 * The rows go as one JSON parameter (src/db/jsonRows.ts): the records themselves, times in epoch
 * milliseconds, made timestamps here (`to_timestamp` of milliseconds / 1000 is exact to the
 * millisecond: a double holds the seconds to well under a microsecond, and Postgres rounds to one).
 * Exported for bench/batchStatements.ts, which measures it against the column arrays it replaced.
 */
export const FIRST_BEAT_INSERT = `WITH v AS (
    INSERT INTO visitors (${COLUMNS})
    SELECT i.company_id, i.chatbot_id, i.visitor_key, i.page, i.title, i.referrer, i.entry_page, i.country, i.device, i.browser, i.os, i.locale,
           i.timezone, i.user_agent, i.page_views, ${seenAt('i')}
      FROM ${recordsAs('i')}
     ORDER BY i.n
    ON CONFLICT (company_id, visitor_key) DO UPDATE SET ${UPDATE_SET}
    RETURNING id, company_id, visitor_key, page, title, referrer, last_seen_at
  ), first_view AS (
    INSERT INTO page_views (company_id, visitor_id, url, title, referrer, viewed_at)
    SELECT v.company_id, v.id, v.page, v.title, v.referrer, v.last_seen_at FROM v WHERE v.page IS NOT NULL ORDER BY v.id
  )
  SELECT id, company_id, visitor_key FROM v`;

const inserts = batchedPer((sequelize: Sequelize) =>
  new Batched<VisitorRecord, number>(async (visitors) => {
    // One row per visitor (the newest call wins: ON CONFLICT may not touch a row twice in one
    // statement), in key order, as the write-behind flush locks them (no deadlock between the two).
    const newest = new Map(visitors.map((v) => [visitorKeyOf(v), v]));
    const rows = sortedByKey([...newest.values()]);
    const written = await plainRows<{ id: string; company_id: number; visitor_key: string }>(sequelize, FIRST_BEAT_INSERT, [jsonRows(rows)], { prepared: true });
    const ids = new Map(written.map((row) => [visitorKeyOf({ companyId: row.company_id, visitorKey: row.visitor_key }), Number(row.id)]));
    return visitors.map((v) => {
      const id = ids.get(visitorKeyOf(v));
      if (id === undefined) throw new Error(`visitor ${visitorKeyOf(v)} was not written`);
      return id;
    });
  }),
);

const sortedByKey = (visitors: VisitorRecord[]) =>
  visitors.sort((a, b) => a.companyId - b.companyId || (a.visitorKey < b.visitorKey ? -1 : a.visitorKey > b.visitorKey ? 1 : 0));

/**
 * The write-behind flush's statement. Its rows go as two JSON parameters (src/db/jsonRows.ts), the
 * records and page views themselves, times in epoch milliseconds made timestamps here, as in
 * FIRST_BEAT_INSERT; prepared (parsed once per connection). With 17 column arrays `pg` built an
 * array literal element by element in JavaScript, escaping each one, and every time became a Date
 * and an ISO string: a few microseconds of the node's CPU per row, and at full scale (every beat of
 * a second a different visitor) a flush has about one row per beat (docs/performance.md, "Heartbeat
 * CPU, eighth round"). Exported for test/integration/visitorBatchJson.test.ts.
 */
export const FLUSH_UPSERT = `WITH upserted AS (
    INSERT INTO visitors (${COLUMNS})
    SELECT v.company_id, CASE WHEN EXISTS (SELECT 1 FROM chatbots b WHERE b.id = v.chatbot_id) THEN v.chatbot_id END,
           v.visitor_key, v.page, v.title, v.referrer, v.entry_page, v.country, v.device, v.browser, v.os, v.locale, v.timezone,
           v.user_agent, v.page_views, ${seenAt('v')}
      FROM ${recordsAs('v')}
     WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = v.company_id)
     ORDER BY v.n
    ON CONFLICT (company_id, visitor_key) DO UPDATE SET ${UPDATE_SET}
    WHERE visitors.last_seen_at <= EXCLUDED.last_seen_at
    RETURNING 1
  ), viewed AS (
    INSERT INTO page_views (company_id, visitor_id, url, title, referrer, viewed_at)
    SELECT p.company_id, p.visitor_id, p.url, p.title, p.referrer, to_timestamp(p.viewed_ms / 1000::float8)
      FROM ROWS FROM (json_to_recordset($2::json) AS ("companyId" int, "visitorId" bigint, url text, title text, referrer text, "viewedAt" float8))
           WITH ORDINALITY AS p(company_id, visitor_id, url, title, referrer, viewed_ms, n)
     -- The visitor still exists: one primary-key probe per view. As a semi-join, the prepared plan
     -- (100 rows guessed for json_to_recordset) hashed the views against a full scan of visitors
     -- while that table was small, and kept it as the table grew (as LOAD_SQL's join did).
     CROSS JOIN LATERAL (SELECT 1 FROM visitors x WHERE x.id = p.visitor_id LIMIT 1) x
     ORDER BY p.n -- ids in the order the pages were seen (a join may reorder rows)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM upserted) AS visitors, (SELECT count(*) FROM viewed) AS views`;

/**
 * Write-behind flush: every dirty visitor and every new page view in ONE statement. A snapshot
 * older than the row (a previous owner flushing late after a shard move) never overwrites it.
 * Rows go in key order so two nodes' concurrent flushes lock rows in the same order (no deadlock).
 * Rows of a workspace, chatbot or visitor deleted meanwhile are skipped, so one of them cannot fail
 * the whole batch on a foreign key.
 */
export async function upsertVisitors(sequelize: Sequelize, visitors: readonly VisitorRecord[], views: readonly PageViewRecord[]): Promise<void> {
  if (!visitors.length && !views.length) return;
  await plainRows(sequelize, FLUSH_UPSERT, [jsonRows(sortedByKey([...visitors])), jsonRows(views)], { prepared: true });
}
