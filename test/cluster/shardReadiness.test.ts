import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { shardOf } from '../../src/actors/cluster/shards';
import { clusterTiming } from '../../src/actors/cluster/timing';
import { Deployment, LEASE_TTL_MS } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { REDIS_URL, TEST_ENV } from '../support/env';
import { eventually } from '../support/eventually';

interface Readiness {
  status: number;
  checks: Record<string, string>;
}

async function readiness(node: ClusterNode): Promise<Readiness> {
  const response = await fetch(`${node.url}/readyz`);
  return { status: response.status, checks: ((await response.json()) as { checks: Record<string, string> }).checks };
}

/** Longer than the grace /readyz gives a shortfall, plus room for a busy machine. */
const SHORTFALL_WAIT_MS = clusterTiming(Number(TEST_ENV.CLUSTER_HEARTBEAT_MS), LEASE_TTL_MS).shortfallGraceMs + 10_000;

describe('/readyz while a node serves less than its share of the shards', function () {
  this.timeout(120_000);

  it('single node fenced out of a shard: 503 naming `shards` while it cannot take the shard back, 200 once it has', async () => {
    const deployment = await Deployment.create({ singleNode: true });
    const holder = new Client({ connectionString: deployment.databaseUrl });
    try {
      const node = await deployment.start('fenced');
      const shard = shardOf('probe', 'fenced-1');
      const before = await node.ask('probe', 'fenced-1', { type: 'increment' });
      assert.ok('value' in before, JSON.stringify(before));

      // Another owner's epoch, then a key-share lock on the fence row: the node's stale write is
      // refused (its FOR SHARE check passes the lock), and its re-take (FOR UPDATE SKIP LOCKED) skips the row.
      await deployment.query("UPDATE shard_fences SET epoch = epoch + 1, owner = 'intruder' WHERE shard = $1", [shard]);
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM shard_fences WHERE shard = $1 FOR KEY SHARE', [shard]);
      const refused = await node.ask('probe', 'fenced-1', { type: 'increment' });
      assert.ok('error' in refused && refused.error.code === 'owner_lost', JSON.stringify(refused));
      assert.equal((await node.state()).owned.length, 1023);

      const short = await eventually(() => readiness(node), (r) => r.status === 503, SHORTFALL_WAIT_MS);
      assert.equal(short.status, 503);
      assert.match(short.checks.shards!, /serves 1023 of its 1024 shards/);
      assert.equal(short.checks.cluster, 'ok');

      await holder.query('COMMIT');
      const back = await eventually(() => readiness(node), (r) => r.status === 200);
      assert.deepEqual(back, { status: 200, checks: { database: 'ok', lock: 'ok', cluster: 'ok', shards: 'ok' } });
      assert.equal((await node.state()).owned.length, 1024);
      const after = await node.ask('probe', 'fenced-1', { type: 'increment' });
      assert.ok('value' in after && (after.value as { turn: number }).turn === 2, JSON.stringify(after));
    } finally {
      await holder.end().catch(() => undefined);
      await deployment.destroy();
    }
  });

  it('cluster node whose lease another holder took: 503 naming `shards` until the lease is free, then takes it back', async () => {
    const deployment = await Deployment.create();
    const redis = new Redis(REDIS_URL);
    try {
      const node = await deployment.start('leased');
      await deployment.settled();
      const shard = shardOf('probe', 'leased-1');
      const lease = `${deployment.redisPrefix}lease:${shard}`;
      await redis.set(lease, 'intruder:0', 'PX', 120_000);

      const short = await eventually(() => readiness(node), (r) => r.status === 503, SHORTFALL_WAIT_MS);
      assert.equal(short.status, 503);
      assert.match(short.checks.shards!, /serves 1023 of its 1024 shards/);
      assert.equal(short.checks.cluster, 'ok');

      await redis.del(lease);
      const back = await eventually(() => readiness(node), (r) => r.status === 200);
      assert.deepEqual(back, { status: 200, checks: { database: 'ok', redis: 'ok', lock: 'ok', cluster: 'ok', shards: 'ok' } });
      assert.equal(await redis.get(lease), (await node.state()).member);
      const answered = await node.ask('probe', 'leased-1', { type: 'increment' });
      assert.ok('value' in answered, JSON.stringify(answered));
    } finally {
      await redis.quit();
      await deployment.destroy();
    }
  });
});
