import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ShardLeases } from '../../src/actors/cluster/leases';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';

describe('shard leases (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  const leases = (owner: string, ttlMs = 5000) => new ShardLeases(redis, prefix, owner, ttlMs);

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
    assert.deepEqual(await a.acquire([3, 4]), [3, 4]);
    assert.deepEqual(await b.acquire([3, 7]), [7], 'only the free shard');
    assert.deepEqual(await a.acquire([3]), [3]);
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
    assert.deepEqual(await a.acquire([5]), [5]);
    assert.deepEqual(await b.acquire([5]), []);
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(await b.acquire([5]), [5]);
    assert.deepEqual(await a.renew([5]), [], 'the old owner learns it lost the shard');
  });

  it('releases only its own leases, at once', async () => {
    const a = leases('a:1');
    const b = leases('b:1');
    await a.acquire([1]);
    await b.acquire([2]);
    assert.equal(await a.release([1, 2]), 1);
    assert.equal(await a.holder(1), null);
    assert.equal(await a.holder(2), 'b:1');
    assert.deepEqual(await b.acquire([1]), [1], 'no TTL-long gap after a graceful release');
  });
});
