import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import { eventually } from '../support/eventually';
import type { ClusterNode } from '../support/cluster/node';

/** No REDIS_URL: the same runtime over in-process membership, leases and timers, in a real process. */
describe('actor runtime in single-node mode (a real process without Redis)', function () {
  this.timeout(60_000);
  let deployment: Deployment;
  let node: ClusterNode;

  before(async () => {
    deployment = await Deployment.create({ singleNode: true });
    // A source left pending by an earlier run: the in-process queue has no memory, so start-up queues it again.
    await deployment.query(`
      WITH company AS (INSERT INTO companies (name, slug) VALUES ('Single', 'single') RETURNING id),
           bot AS (INSERT INTO chatbots (company_id, public_key, name, provider, model, welcome_message, identity_secret_encrypted)
                   SELECT id, 'pk_single', 'Bot', 'openai', 'gpt-4o-mini', 'Hi', 'sealed' FROM company RETURNING id, company_id)
      INSERT INTO knowledge_sources (company_id, chatbot_id, type, title, content, status)
      SELECT company_id, id, 'text', 'Hours', 'We are open from nine to five on weekdays.', 'pending' FROM bot`);
    node = await deployment.start();
  });
  after(() => deployment?.destroy());

  it('serves every shard at once, fenced, and reports ready', async () => {
    const state = await node.state();
    assert.equal(state.owned.length, 1024);
    const [fences] = await deployment.query<{ shards: number; owners: number }>('SELECT count(*)::int AS shards, count(DISTINCT owner)::int AS owners FROM shard_fences');
    assert.deepEqual(fences, { shards: 1024, owners: 1 });
    const ready = (await (await fetch(`${node.url}/readyz`)).json()) as { checks: Record<string, string> };
    assert.deepEqual(ready.checks, { cluster: 'ok', database: 'ok', lock: 'ok', shards: 'ok' });
  });

  it('runs turns one at a time, dedupes by idempotency key, and persists under the epoch', async () => {
    const replies = await Promise.all(Array.from({ length: 5 }, () => node.ask('probe', 'single-1', { type: 'increment', holdMs: 5 })));
    assert.deepEqual(replies.map((r) => (r as { value: { turn: number } }).value.turn).sort(), [1, 2, 3, 4, 5]);
    const [first, retry] = await Promise.all([
      node.ask('probe', 'single-1', { type: 'increment' }, { idempotencyKey: 'k' }),
      node.ask('probe', 'single-1', { type: 'increment' }, { idempotencyKey: 'k' }),
    ]);
    assert.deepEqual(retry, first);
    const [{ turns }] = (await deployment.query<{ turns: number }>("SELECT count(*)::int AS turns FROM probe_turns WHERE actor = 'single-1'")) as [{ turns: number }];
    assert.equal(turns, 6);
  });

  it('delivers reminders from in-process timers', async () => {
    await node.ask('probe', 'single-2', { type: 'remind', key: 'wake', delayMs: 200 });
    await node.ask('probe', 'single-2', { type: 'remind', key: 'never', delayMs: 200 });
    await node.ask('probe', 'single-2', { type: 'cancelReminder', key: 'never' });
    await new Promise((r) => setTimeout(r, 600));
    assert.deepEqual(await node.ask('probe', 'single-2', { type: 'remindedKeys' }), { value: ['wake'] });
  });

  it('runs indexing jobs in its own process', async () => {
    const rows = await eventually(
      () => deployment.query<{ status: string; chunk_count: number }>("SELECT status, chunk_count FROM knowledge_sources WHERE title = 'Hours'"),
      (found) => found[0]?.status === 'ready',
    );
    assert.deepEqual(rows, [{ status: 'ready', chunk_count: 1 }]);
  });

  it('stops gracefully on SIGTERM', async () => {
    await node.kill('SIGTERM');
    assert.equal(node.logs((e) => e.msg === 'stopped').length, 1);
  });
});
