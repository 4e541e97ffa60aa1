import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ShardLeases } from '../../src/actors/cluster/leases';
import { presenceChannel } from '../../src/actors/cluster/presence';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('shard leases (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  const leases = (owner: string, ttlMs = 5000) => new ShardLeases(redis, prefix, owner, ttlMs, 60_000);

  before(() => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(() => {
    prefix = `${TEST_REDIS_PREFIX}${randomBytes(3).toString('hex')}:`;
  });
  after(() => redis.quit());

  it('grants a free shard to one node only; the holder may acquire again', async () => {
    const a = leases('a:1');
    const b = leases('b:1');
    assert.deepEqual(await a.acquire([3, 4]).then((r) => r.shards), [3, 4]);
    assert.deepEqual(await b.acquire([3, 7]).then((r) => r.shards), [7], 'only the free shard');
    assert.deepEqual(await a.acquire([3]).then((r) => r.shards), [3]);
    assert.equal(await b.holder(3), 'a:1');
    const ttl = await redis.pttl(a.key(3));
    assert.ok(ttl > 4000 && ttl <= 5000, `ttl ${ttl}`);
  });

  it('renews in one call only the leases still held', async () => {
    const a = leases('a:1', 200);
    const b = leases('b:1');
    await a.acquire([1, 2]);
    await b.acquire([9]);
    await redis.del(a.key(2)); // lost, e.g. expired during a pause
    await b.acquire([2]);
    assert.deepEqual(await a.renew([1, 2, 9]), [1]);
    assert.ok((await redis.pttl(a.key(1))) > 150);
    assert.equal(await a.holder(2), 'b:1', 'renewal never steals');
    assert.deepEqual(await a.renew([]), []);
  });

  it('lets a lease lapse after its TTL, after which another node may take the shard', async () => {
    const a = leases('a:1', 150);
    const b = leases('b:1');
    assert.deepEqual(await a.acquire([5]).then((r) => r.shards), [5]);
    assert.deepEqual(await b.acquire([5]).then((r) => r.shards), []);
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(await b.acquire([5]).then((r) => r.shards), [5]);
    assert.deepEqual(await a.renew([5]), [], 'the old owner learns it lost the shard');
  });

  it('releases only its own leases, at once', async () => {
    const a = leases('a:1');
    const b = leases('b:1');
    await a.acquire([1]).then((r) => r.shards);
    await b.acquire([2]).then((r) => r.shards);
    assert.equal(await a.release([1, 2]), 1);
    assert.equal(await a.holder(1), null);
    assert.equal(await a.holder(2), 'b:1');
    assert.deepEqual(await b.acquire([1]).then((r) => r.shards), [1], 'no TTL-long gap after a graceful release');
  });

  /** A holder's presence as a node registers it: its life's channel subscribed, then "<life> <grace>". */
  async function present(member: string, life: number, graceMs: number): Promise<Redis> {
    const connection = new Redis(REDIS_URL);
    await connection.subscribe(presenceChannel(prefix, member, life));
    await redis.set(`${prefix}presence:${member}`, `${life} ${graceMs}`);
    return connection;
  }

  it('takes the leases of a holder whose presence connection closed once its grace has passed, not before', async () => {
    const a = leases('a:1', 60_000);
    const b = leases('b:1');
    const connection = await present('a:1', 1, 400);
    await a.acquire([5, 6]);
    assert.deepEqual(await b.acquire([5, 6]), { shards: [] }, 'a connected holder keeps its leases');
    connection.disconnect();
    await waitFor(async () => (await redis.pubsub('NUMSUB', presenceChannel(prefix, 'a:1', 1)))[1] === 0);
    const early = await b.acquire([5, 6]);
    assert.deepEqual(early.shards, [], 'nothing is taken within the grace');
    assert.ok(early.retryInMs !== undefined && early.retryInMs > 0 && early.retryInMs <= 400, `retry in ${early.retryInMs} ms`);
    await new Promise((r) => setTimeout(r, early.retryInMs! + 20));
    assert.deepEqual(await b.acquire([5, 6]), { shards: [5, 6] });
    assert.deepEqual(await a.renew([5, 6]), [], 'the gone holder cannot renew them');
  });

  it('never takes early the leases of a holder that registered no presence, or whose current life is connected', async () => {
    const a = leases('a:1', 60_000);
    const c = leases('c:1', 60_000);
    const b = leases('b:1');
    await a.acquire([1]);
    await c.acquire([2]);
    const old = await present('c:1', 1, 100);
    const current = await present('c:1', 2, 100);
    old.disconnect();
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(await b.acquire([1, 2]), { shards: [] });
    current.disconnect();
  });
});
