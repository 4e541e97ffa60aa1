import { strict as assert } from 'node:assert';
import pg, { Client } from 'pg';
import { Sequelize } from 'sequelize';
import { ARRIVAL_SQL } from '../../src/domain/visitors/arrivalRead';
import { FLUSH_UPSERT, LOAD_SQL } from '../../src/domain/visitors/records';
import { visitorsLive } from '../../src/models/migrations/0021-visitors-live';
import { databaseUrlOf, TEST_DATABASE, TEST_ENV } from '../support/env';
import { withClient } from '../support/pg';
import { childEnv, cliOk } from '../support/processes';

/**
 * How Postgres reads `visitors` for a first beat's row read (`loadVisitor`, and `readArrival`, which
 * reads it with the beat's facts) and for the write-behind flush's page views (`upsertVisitors`: the
 * visitor still exists), on a database of its own:
 * a table never analyzed (autovacuum off, or a new install) is the case that went wrong, and the
 * suite's shared database may have been analyzed by another test. docs/performance.md, "Arrivals,
 * seventh round".
 */

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan that reads `visitors`, as "node type [index]". */
function visitorReads(node: PlanNode): string[] {
  const own = node['Relation Name'] === 'visitors' ? [`${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''}`] : [];
  return [...own, ...(node.Plans ?? []).flatMap(visitorReads)];
}

/** The statements that read a batch's visitors by key. */
const READS = { LOAD_SQL, ARRIVAL_SQL };

/** The plan a prepared read settles on (the generic one, kept for the connection's life), for a batch of `keys` keys. */
async function loadPlan(client: Client, companyId: number, keys: number, sql: string): Promise<string[]> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE load_visitors(json) AS ${sql}`);
  // Fields a statement does not declare are ignored by json_to_recordset: one batch fits both.
  const batch = JSON.stringify(Array.from({ length: keys }, (_, i) => ({ companyId, chatbotId: 1, visitorKey: `plan-visitor-${i * 7}`, conversationId: null })));
  const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE load_visitors('${batch}')`);
  return visitorReads(rows[0]!['QUERY PLAN'][0]!.Plan);
}

/** How the prepared write-behind flush (FLUSH_UPSERT) reads `visitors`, besides writing it: its page views' check that the visitor exists. */
async function flushReads(client: Client, companyId: number): Promise<string[]> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE flush_visitors(json, json) AS ${FLUSH_UPSERT}`);
  const views = JSON.stringify(Array.from({ length: 15 }, (_, i) => ({ companyId, visitorId: i + 1, url: 'https://shop.example/', title: null, referrer: null, viewedAt: 0 })));
  const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE flush_visitors('[]', '${views}')`);
  return visitorReads(rows[0]!['QUERY PLAN'][0]!.Plan).filter((read) => read !== 'ModifyTable');
}

/** One primary-key probe per page view: never a scan of the whole table. */
const PROBES_ONLY = (reads: string[]) => reads.length > 0 && reads.every((read) => /^Index (?:Only )?Scan visitors_pkey$/.test(read));

describe("visitors' first-beat row read: one unique-index lookup per key, whatever the statistics", function () {
  this.timeout(120_000);
  const database = `${TEST_DATABASE}_plans`;
  const databaseUrl = databaseUrlOf(database);
  let client: Client;
  let companyId = 0;

  before(async () => {
    await withClient((admin) => admin.query(`CREATE DATABASE ${database}`));
    await cliOk(['migrate'], childEnv({ ...TEST_ENV, DATABASE_URL: databaseUrl }, ['REDIS_URL']));
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('SET plan_cache_mode = force_generic_plan');
    const { rows } = await client.query<{ id: number }>(`INSERT INTO companies (name, slug, created_at, updated_at) VALUES ('Plans', 'plans', now(), now()) RETURNING id`);
    companyId = rows[0]!.id;
  });

  after(async () => {
    await client?.end();
    await withClient((admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  const UNIQUE_ONLY = ['Index Scan visitors_company_id_visitor_key_key'];

  it('on an empty table never analyzed (the plan a connection keeps from its first batches)', async () => {
    const { rows } = await client.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'visitors'");
    assert.equal(rows[0]!.reltuples, -1, 'no statistics yet');
    for (const [name, sql] of Object.entries(READS)) {
      for (const keys of [1, 15, 100]) assert.deepEqual(await loadPlan(client, companyId, keys, sql), UNIQUE_ONLY, `${name}, ${keys} keys`);
    }
    const flush = await flushReads(client, companyId);
    assert.ok(PROBES_ONLY(flush), `the write-behind flush's page views read visitors by ${flush.join(', ')}`);
  });

  it('with 5,000 visitors of one workspace, before and after ANALYZE', async () => {
    await client.query(`INSERT INTO visitors (company_id, visitor_key) SELECT $1, 'plan-visitor-' || i FROM generate_series(1, 5000) i`, [companyId]);
    for (const [name, sql] of Object.entries(READS)) {
      for (const keys of [1, 15, 100]) assert.deepEqual(await loadPlan(client, companyId, keys, sql), UNIQUE_ONLY, `${name}, ${keys} keys, no statistics`);
    }
    await client.query('ANALYZE visitors');
    for (const [name, sql] of Object.entries(READS)) {
      for (const keys of [1, 15, 100]) assert.deepEqual(await loadPlan(client, companyId, keys, sql), UNIQUE_ONLY, `${name}, ${keys} keys, analyzed`);
    }
    const flush = await flushReads(client, companyId);
    assert.ok(PROBES_ONLY(flush), `the write-behind flush's page views read visitors by ${flush.join(', ')}`);
    // And it reads what it should: the keys that exist, in the batch's order.
    const found = await client.query<{ n: string; visitor_key: string }>(`SELECT n, (SELECT visitor_key FROM visitors WHERE id = l.id) AS visitor_key FROM (${LOAD_SQL}) l ORDER BY n`, [
      JSON.stringify([{ companyId, visitorKey: 'plan-visitor-9' }, { companyId, visitorKey: 'nobody' }, { companyId, visitorKey: 'plan-visitor-4000' }]),
    ]);
    assert.deepEqual(found.rows.map((row) => [Number(row.n), row.visitor_key]), [[1, 'plan-visitor-9'], [3, 'plan-visitor-4000']]);
    // The arrival's read answers every key (the facts are there for a visitor never seen), in order.
    const arrived = await client.query<{ n: string; visitor_key: string | null; held: boolean }>(
      `SELECT n, (SELECT visitor_key FROM visitors WHERE id = l.id) AS visitor_key, held FROM (${ARRIVAL_SQL}) l ORDER BY n`,
      [JSON.stringify(['plan-visitor-9', 'nobody', 'plan-visitor-4000'].map((visitorKey) => ({ companyId, chatbotId: 1, visitorKey, conversationId: null })))],
    );
    assert.deepEqual(arrived.rows.map((row) => [Number(row.n), row.visitor_key, row.held]), [[1, 'plan-visitor-9', false], [2, null, false], [3, 'plan-visitor-4000', false]]);
  });

  it('migration 0021 replaces visitors_recent with the partial visitors_live, and back', async () => {
    const indexes = async () =>
      (await client.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'visitors' AND indexname IN ('visitors_recent', 'visitors_live') ORDER BY indexname")).rows.map((row) => row.indexdef);
    const live = 'CREATE INDEX visitors_live ON public.visitors USING btree (company_id, last_seen_at DESC) WHERE (chatbot_id IS NOT NULL)';
    assert.deepEqual(await indexes(), [live]);
    const sequelize = new Sequelize(databaseUrl, { dialect: 'postgres', dialectModule: pg, logging: false });
    try {
      await visitorsLive.down!({ name: visitorsLive.name, context: sequelize });
      assert.deepEqual(await indexes(), ['CREATE INDEX visitors_recent ON public.visitors USING btree (company_id, last_seen_at DESC)']);
      await visitorsLive.up({ name: visitorsLive.name, context: sequelize });
      assert.deepEqual(await indexes(), [live]);
    } finally {
      await sequelize.close();
    }
  });
});
