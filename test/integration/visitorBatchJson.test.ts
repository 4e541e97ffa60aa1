import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { plainRows } from '../../src/db/plainRows';
import { beatFacts } from '../../src/domain/visitors/beatFacts';
import { blankVisitor, insertVisitor, loadVisitor, upsertVisitors, type PageViewRecord, type VisitorRecord } from '../../src/domain/visitors/records';
import * as make from '../support/factories';
import { server } from '../support/hooks';

/**
 * The first beat's batched statements take their rows as one JSON parameter (src/db/jsonRows.ts).
 * What they store must be what the column-array statement before them stored, for any text a widget
 * can send: the statement before is kept here as the reference, and both write the same records.
 */
const run = randomBytes(3).toString('hex');

const COLUMNS =
  'company_id, chatbot_id, visitor_key, page, title, referrer, entry_page, country, device, browser, os, locale, timezone, user_agent, page_views, first_seen_at, last_seen_at';

/** The insert as it was before the JSON parameter (column arrays), without its ON CONFLICT branch: every key here is new. */
const ARRAYS_INSERT = `WITH v AS (
    INSERT INTO visitors (${COLUMNS})
    SELECT ${COLUMNS}
      FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                  $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::timestamptz[], $17::timestamptz[])
           WITH ORDINALITY AS i(${COLUMNS}, n)
     ORDER BY i.n
    RETURNING id, company_id, visitor_key, page, title, referrer, last_seen_at
  ), first_view AS (
    INSERT INTO page_views (company_id, visitor_id, url, title, referrer, viewed_at)
    SELECT v.company_id, v.id, v.page, v.title, v.referrer, v.last_seen_at FROM v WHERE v.page IS NOT NULL ORDER BY v.id
  )
  SELECT id FROM v`;

/** The write-behind flush as it was before its JSON parameters (column arrays, through `sequelize.query`): the reference for `upsertVisitors`. */
const ARRAYS_FLUSH = `WITH upserted AS (
    INSERT INTO visitors (${COLUMNS})
    SELECT v.company_id, CASE WHEN EXISTS (SELECT 1 FROM chatbots b WHERE b.id = v.chatbot_id) THEN v.chatbot_id END,
           v.visitor_key, v.page, v.title, v.referrer, v.entry_page, v.country, v.device, v.browser, v.os, v.locale, v.timezone,
           v.user_agent, v.page_views, v.first_seen_at, v.last_seen_at
      FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                  $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::timestamptz[], $17::timestamptz[])
           WITH ORDINALITY AS v(${COLUMNS}, n)
     WHERE EXISTS (SELECT 1 FROM companies c WHERE c.id = v.company_id)
     ORDER BY v.n
    ON CONFLICT (company_id, visitor_key) DO UPDATE SET chatbot_id = EXCLUDED.chatbot_id, page = EXCLUDED.page, title = EXCLUDED.title,
      referrer = EXCLUDED.referrer, entry_page = EXCLUDED.entry_page, country = EXCLUDED.country, device = EXCLUDED.device, browser = EXCLUDED.browser,
      os = EXCLUDED.os, locale = EXCLUDED.locale, timezone = EXCLUDED.timezone, user_agent = EXCLUDED.user_agent, page_views = EXCLUDED.page_views,
      first_seen_at = LEAST(visitors.first_seen_at, EXCLUDED.first_seen_at), last_seen_at = EXCLUDED.last_seen_at, updated_at = now()
    WHERE visitors.last_seen_at <= EXCLUDED.last_seen_at
    RETURNING 1
  ), viewed AS (
    INSERT INTO page_views (company_id, visitor_id, url, title, referrer, viewed_at)
    SELECT p.company_id, p.visitor_id, p.url, p.title, p.referrer, p.viewed_at
      FROM unnest($18::int[], $19::bigint[], $20::text[], $21::text[], $22::text[], $23::timestamptz[])
           WITH ORDINALITY AS p(company_id, visitor_id, url, title, referrer, viewed_at, n)
     WHERE EXISTS (SELECT 1 FROM visitors x WHERE x.id = p.visitor_id)
     ORDER BY p.n
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM upserted) AS visitors, (SELECT count(*) FROM viewed) AS views`;

/**
 * A key as Postgres stores it. A key with half a surrogate pair comes back as U+FFFD and is not found
 * by the insert's answer; so it was with the column arrays (the same UTF-8), so keys here are whole.
 */
const wellFormed = (text: string) => Buffer.from(text).toString();

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The flush of before: rows in key order, as `upsertVisitors` sorts them. */
async function flushWithArrays(sequelize: Sequelize, visitors: readonly VisitorRecord[], views: readonly PageViewRecord[]): Promise<void> {
  const sorted = [...visitors].sort((a, b) => a.companyId - b.companyId || (a.visitorKey < b.visitorKey ? -1 : a.visitorKey > b.visitorKey ? 1 : 0));
  const rows = sorted.map((v) => [
    v.companyId, v.chatbotId, v.visitorKey, v.page, v.title, v.referrer, v.entryPage, v.country, v.device, v.browser, v.os, v.locale, v.timezone, v.userAgent,
    v.pageViews, iso(v.firstSeenAt ?? v.lastSeenAt), iso(v.lastSeenAt),
  ]);
  const viewRows = views.map((r) => [r.companyId, r.visitorId, r.url, r.title, r.referrer, iso(r.viewedAt)]);
  const columnsOf = (table: unknown[][], width: number) => Array.from({ length: width }, (_, column) => table.map((row) => row[column]));
  await sequelize.query(ARRAYS_FLUSH, { bind: [...columnsOf(rows, 17), ...columnsOf(viewRows, 6)], type: QueryTypes.SELECT });
}

async function insertWithArrays(sequelize: Sequelize, visitors: readonly VisitorRecord[]): Promise<void> {
  const values = visitors.map((v) => [
    v.companyId, v.chatbotId, v.visitorKey, v.page, v.title, v.referrer, v.entryPage, v.country, v.device, v.browser, v.os, v.locale, v.timezone, v.userAgent,
    v.pageViews, iso(v.firstSeenAt ?? v.lastSeenAt), iso(v.lastSeenAt),
  ]);
  await plainRows(sequelize, ARRAYS_INSERT, Array.from({ length: 17 }, (_, column) => values.map((row) => row[column])));
}

/** Every stored column of the visitors whose keys start with `prefix`, and of their page views, keyed by what follows it. */
async function stored(sequelize: Sequelize, companyId: number, prefix: string) {
  return sequelize.query<Record<string, unknown>>(
    `SELECT substr(v.visitor_key, length($2) + 1) AS key, v.chatbot_id, v.page, v.title, v.referrer, v.entry_page, v.country, v.device, v.browser,
            v.os, v.locale, v.timezone, v.user_agent, v.page_views, v.first_seen_at::text AS first_seen, v.last_seen_at::text AS last_seen,
            (SELECT json_agg(json_build_array(p.url, p.title, p.referrer, p.viewed_at::text)) FROM page_views p WHERE p.visitor_id = v.id) AS views
       FROM visitors v WHERE v.company_id = $1 AND starts_with(v.visitor_key, $2) ORDER BY 1`,
    { bind: [companyId, prefix], type: QueryTypes.SELECT },
  );
}

/** Text a widget can send, in every field: quotes, backslashes, array syntax, `NULL`, blanks, controls, scripts, emoji, lone surrogates. */
const ODD = [
  'plain',
  '',
  ' ',
  'NULL',
  'null',
  '"quoted"',
  "it's",
  'back\\slash',
  '\\',
  '\\\\"',
  '{a,b}',
  '{"x":1}',
  'a,b',
  'tab\tnew\nline\r',
  '\u0001\u001f\u007f',
  '\\ud800 as text',
  '\\u0041',
  'café Ünïcödé',
  '日本語のページ',
  'שלום עולם',
  '😀👍🏽 family 👨‍👩‍👧',
  'e\u0301',
  'lone high \ud83d here',
  'lone low \ude00',
  '\\\ud800',
  'x'.repeat(2_000),
];

function record(companyId: number, chatbotId: number | null, key: string, i: number): VisitorRecord {
  const odd = (k: number) => ODD[(i + k) % ODD.length]!;
  // Cut to the column's length (both statements refuse longer text the same way); a cut may leave half a pair, also odd.
  const nullable = (k: number, max: number) => ((i + k) % 5 === 0 ? null : odd(k).slice(0, max));
  const lastSeenAt = Date.UTC(2026, 10, 27, 12, 0, 0) + i * 1_001 + (i % 1_000);
  return {
    ...blankVisitor(companyId, key),
    chatbotId,
    page: (i + 3) % 7 === 0 ? null : `https://shop.example/${odd(0).slice(0, 2_000)}`,
    title: nullable(1, 500),
    referrer: nullable(2, 2048),
    entryPage: nullable(3, 2048),
    country: nullable(4, 2),
    device: nullable(5, 40),
    browser: nullable(6, 60),
    os: nullable(7, 60),
    locale: nullable(8, 35),
    timezone: nullable(9, 64),
    userAgent: nullable(10, 1000),
    pageViews: i % 3,
    firstSeenAt: i % 4 === 0 ? null : lastSeenAt - (i % 997) * 37,
    lastSeenAt,
  };
}

describe('the first beat\'s batched statements, rows as one JSON parameter', () => {
  for (const size of [1, 2, ODD.length, 300]) {
    it(`a batch of ${size}: what the insert stores, page views included, is what the column-array statement stored`, async function () {
      this.timeout(30_000);
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const sequelize = server().ctx.db.sequelize;
      // Keys odd too (every key distinct: the index is in it), some visitors without a chatbot.
      const keyOf = (i: number) => `${i}:${wellFormed(ODD[i % ODD.length]!.slice(0, 40))}`;
      const records = (prefix: string) => Array.from({ length: size }, (_, i) => record(company.id, i % 6 === 5 ? null : bot.id, `${prefix}${keyOf(i)}`, i));
      await insertWithArrays(sequelize, records(`arrays-${run}-`));
      const ids = await Promise.all(records(`json-${run}-`).map((visitor) => insertVisitor(sequelize, visitor)));
      assert.equal(new Set(ids).size, size);
      const before = await stored(sequelize, company.id, `arrays-${run}-`);
      const after = await stored(sequelize, company.id, `json-${run}-`);
      assert.equal(after.length, size);
      assert.deepEqual(after, before);
    });
  }

  it('text Postgres cannot store (a NUL) fails only its own visitor, as before; the rest of the batch is written', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const sequelize = server().ctx.db.sequelize;
    const visitors = Array.from({ length: 5 }, (_, i) => record(company.id, bot.id, `nul-${run}-${i}`, i));
    visitors[2]!.title = 'before\u0000after';
    await assert.rejects(insertWithArrays(sequelize, [visitors[2]!]), 'the column arrays refused it too');
    const outcomes = await Promise.allSettled(visitors.map((visitor) => insertVisitor(sequelize, visitor)));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.equal((await stored(sequelize, company.id, `nul-${run}-`)).length, 4);
  });

  it('odd keys: the batched row read finds each visitor written, and the facts read answers for each', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const sequelize = server().ctx.db.sequelize;
    const keys = ODD.map((odd, i) => `${i}:${wellFormed(odd.slice(0, 60))}`);
    const written = keys.map((key, i) => record(company.id, bot.id, `read-${run}-${key}`, i));
    await Promise.all(written.map((visitor) => insertVisitor(sequelize, visitor)));
    // Read together (one statement), with keys never written between them.
    const read = await Promise.all(keys.flatMap((key) => [loadVisitor(sequelize, company.id, `read-${run}-${key}`), loadVisitor(sequelize, company.id, `absent-${run}-${key}`)]));
    read.forEach((visitor, i) => {
      const key = `${i % 2 ? 'absent' : 'read'}-${run}-${keys[i >> 1]!}`;
      assert.equal(visitor.visitorKey, key);
      if (i % 2) return assert.equal(visitor.id, null);
      const expected = written[i >> 1]!;
      assert.ok(visitor.id !== null);
      // What was written comes back, lone surrogates as U+FFFD (what UTF-8 can carry), first seen as the insert fell back to.
      const utf8 = (text: string | null) => (text === null ? null : Buffer.from(text).toString());
      assert.deepEqual(
        [visitor.page, visitor.title, visitor.referrer, visitor.userAgent, visitor.timezone, visitor.pageViews, visitor.firstSeenAt, visitor.lastSeenAt],
        [utf8(expected.page), utf8(expected.title), utf8(expected.referrer), utf8(expected.userAgent), utf8(expected.timezone), expected.pageViews, expected.firstSeenAt ?? expected.lastSeenAt, expected.lastSeenAt],
      );
    });
    const facts = await Promise.all(keys.map((key, i) => beatFacts(sequelize, { companyId: company.id, chatbotId: bot.id, visitorKey: `read-${run}-${key}` }, i % 2 ? undefined : '0d8f1b8e-4f5c-4a8e-9a51-2b1c3d4e5f60')));
    assert.deepEqual(new Set(facts.map((fact) => JSON.stringify(fact))), new Set([JSON.stringify({ blocked: false, latestOpen: null, held: false, owns: false })]));
  });
});

describe('the write-behind flush, rows as JSON parameters', () => {
  for (const size of [1, ODD.length, 300]) {
    it(`a flush of ${size}: what it stores (updates, a stale snapshot, a new row, page views, a view of no visitor) is what the column-array flush stored`, async function () {
      this.timeout(30_000);
      const { company } = await make.workspace();
      const bot = await make.chatbot(company);
      const sequelize = server().ctx.db.sequelize;
      const keyOf = (i: number) => `${i}:${wellFormed(ODD[i % ODD.length]!.slice(0, 40))}`;
      const flushed = async (prefix: string, flush: (visitors: VisitorRecord[], views: PageViewRecord[]) => Promise<void>) => {
        // Every visitor's first beat written, then a later state of each (odd text moved along by 7), one in five a snapshot older than its row.
        const first = Array.from({ length: size }, (_, i) => record(company.id, bot.id, `${prefix}${keyOf(i)}`, i));
        const ids = await Promise.all(first.map((visitor) => insertVisitor(sequelize, visitor)));
        const later: VisitorRecord[] = first.map((visitor, i) => ({
          ...record(company.id, i % 6 === 5 ? null : bot.id, visitor.visitorKey, i + 7),
          id: ids[i]!,
          lastSeenAt: visitor.lastSeenAt! + (i % 5 === 4 ? -1_000 : 60_000 + i),
        }));
        // A visitor never written (its row made by the flush), and a page view of a visitor id that does not exist (skipped).
        later.push(record(company.id, bot.id, `${prefix}new`, 3));
        const views: PageViewRecord[] = later.slice(0, size).map((visitor, i) => ({
          companyId: company.id,
          visitorId: ids[i]!,
          url: `https://shop.example/${ODD[(i + 2) % ODD.length]!.slice(0, 1_000)}`,
          title: i % 4 === 0 ? null : ODD[(i + 5) % ODD.length]!.slice(0, 500),
          referrer: i % 3 === 0 ? null : ODD[(i + 9) % ODD.length]!.slice(0, 2_048),
          viewedAt: visitor.lastSeenAt! + i,
        }));
        views.push({ companyId: company.id, visitorId: -1, url: 'https://shop.example/nobody', title: null, referrer: null, viewedAt: Date.now() });
        await flush(later, views);
      };
      await flushed(`arrays-flush-${run}-`, (visitors, views) => flushWithArrays(sequelize, visitors, views));
      await flushed(`json-flush-${run}-`, (visitors, views) => upsertVisitors(sequelize, visitors, views));
      const before = await stored(sequelize, company.id, `arrays-flush-${run}-`);
      const after = await stored(sequelize, company.id, `json-flush-${run}-`);
      assert.equal(after.length, size + 1);
      assert.deepEqual(after, before);
    });
  }
});
