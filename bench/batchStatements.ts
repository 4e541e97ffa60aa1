import pg from 'pg';
import { readFileSync } from 'node:fs';
import { jsonRows } from '../src/db/jsonRows';
import { FIRST_BEAT_INSERT } from '../src/domain/visitors/records';
import { scoped } from './support/cleanup';
import { benchDatabase } from './support/resources';
import { runScript } from './support/runScript';

/**
 * The first beat's batched insert, column arrays (before the sixth round, kept here) against the one
 * JSON parameter it now takes (src/domain/visitors/records.ts, src/db/jsonRows.ts), both prepared, batches of BATCH_SIZE new visitors, alternating blocks on one
 * connection: the client's encoding of a batch (pg's array literals against JSON.stringify) and the
 * backend's CPU per visitor (utime + stime of its process). docs/performance.md, "Arrivals, sixth
 * round". Usage (after `npm run build`): `node dist/bench/batchStatements.js [blocks]`.
 */
/** What `pg` does to each bind value before it is sent (its own module: the package does not export it). */
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };
const BATCH_SIZE = Number(process.env.BATCH_SIZE ?? 15);
const BATCHES_PER_BLOCK = 200;
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const COLUMNS =
  'company_id, chatbot_id, visitor_key, page, title, referrer, entry_page, country, device, browser, os, locale, timezone, user_agent, page_views, first_seen_at, last_seen_at';
const UPDATE_SET = `chatbot_id = EXCLUDED.chatbot_id, page = EXCLUDED.page, title = EXCLUDED.title, referrer = EXCLUDED.referrer,
  entry_page = EXCLUDED.entry_page, country = EXCLUDED.country, device = EXCLUDED.device, browser = EXCLUDED.browser, os = EXCLUDED.os,
  locale = EXCLUDED.locale, timezone = EXCLUDED.timezone, user_agent = EXCLUDED.user_agent, page_views = EXCLUDED.page_views,
  first_seen_at = LEAST(visitors.first_seen_at, EXCLUDED.first_seen_at), last_seen_at = EXCLUDED.last_seen_at, updated_at = now()`;
const TAIL = `ON CONFLICT (company_id, visitor_key) DO UPDATE SET ${UPDATE_SET}
    RETURNING id, company_id, visitor_key, page, title, referrer, last_seen_at
  ), first_view AS (
    INSERT INTO page_views (company_id, visitor_id, url, title, referrer, viewed_at)
    SELECT v.company_id, v.id, v.page, v.title, v.referrer, v.last_seen_at FROM v WHERE v.page IS NOT NULL ORDER BY v.id
  )
  SELECT id, company_id, visitor_key FROM v`;
const ARRAYS = `WITH v AS (
    INSERT INTO visitors (${COLUMNS})
    SELECT ${COLUMNS}
      FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                  $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::timestamptz[], $17::timestamptz[])
           WITH ORDINALITY AS i(${COLUMNS}, n)
     ORDER BY i.n
    ${TAIL}`;
interface Row {
  companyId: number;
  chatbotId: number;
  visitorKey: string;
  page: string;
  title: string;
  referrer: string;
  entryPage: string;
  country: string;
  device: string;
  browser: string;
  os: string;
  locale: null;
  timezone: null;
  userAgent: string;
  pageViews: number;
  firstSeenAt: number;
  lastSeenAt: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const arrays = (rows: Row[]) => {
  const values = rows.map((v) => [v.companyId, v.chatbotId, v.visitorKey, v.page, v.title, v.referrer, v.entryPage, v.country, v.device, v.browser, v.os, v.locale, v.timezone, v.userAgent, v.pageViews, iso(v.firstSeenAt), iso(v.lastSeenAt)]);
  return Array.from({ length: 17 }, (_, column) => values.map((row) => row[column]));
};

const backendCpuS = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 6);
  await scoped(async () => {
    const client = new pg.Client({ connectionString: await benchDatabase('batchstmt') });
    await client.connect();
    try {
      const [{ id: companyId }] = (await client.query<{ id: number }>(`INSERT INTO companies (name, slug, created_at, updated_at) VALUES ('Batch statements', 'batch-statements', now(), now()) RETURNING id`)).rows as [{ id: number }];
      const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      let next = 0;
      const batch = (): Row[] =>
        Array.from({ length: BATCH_SIZE }, () => {
          const i = next++;
          const at = Date.now();
          return { companyId, chatbotId: null as unknown as number, visitorKey: `bs-visitor-${i}`, page: 'https://shop.example/products/0', title: 'Product 0', referrer: 'https://www.google.com/', entryPage: 'https://shop.example/products/0', country: 'DE', device: 'desktop', browser: 'Chrome', os: 'Windows', locale: null, timezone: null, userAgent: UA, pageViews: 1, firstSeenAt: at, lastSeenAt: at };
        });
      const sides = {
        arrays: { name: 'arrays', text: ARRAYS, params: arrays, encode: (rows: Row[]) => arrays(rows).map((column) => prepareValue(column) as string), pg: 0, client: 0, visitors: 0 },
        json: { name: 'json', text: FIRST_BEAT_INSERT, params: (rows: Row[]) => [jsonRows(rows)], encode: (rows: Row[]) => [jsonRows(rows)], pg: 0, client: 0, visitors: 0 },
      };
      for (let block = 0; block < blocks; block++) {
        for (const side of Object.values(sides)) {
          const rows = Array.from({ length: BATCHES_PER_BLOCK }, batch);
          const c0 = process.cpuUsage();
          for (const each of rows) side.encode(each);
          const c = process.cpuUsage(c0);
          const p0 = backendCpuS(pid);
          for (const each of rows) await client.query({ name: side.name, text: side.text, values: side.params(each) as unknown[] });
          if (block === 0) continue; // the first block warms both up
          side.pg += backendCpuS(pid) - p0;
          side.client += (c.user + c.system) / 1e6;
          side.visitors += rows.length * BATCH_SIZE;
        }
      }
      for (const side of Object.values(sides)) {
        process.stdout.write(`${JSON.stringify({ statement: side.name, batch: BATCH_SIZE, visitors: side.visitors, postgres_cpu_us_per_visitor: Number(((1e6 * side.pg) / side.visitors).toFixed(1)), client_encoding_us_per_visitor: Number(((1e6 * side.client) / side.visitors).toFixed(2)) })}\n`);
      }
    } finally {
      await client.end();
    }
  });
}

runScript(main);
