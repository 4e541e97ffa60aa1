import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { limiterFactory } from '../../src/limits/limiters';
import { reservedLimiter, type ReservedLimiter, type Spent } from '../../src/limits/reservedLimiter';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';

const uniqueName = () => `test-reserved-${randomBytes(4).toString('hex')}`;
const spend = async (limiter: ReservedLimiter, key: string): Promise<Spent> => limiter.spend(key);

/** src/limits/reservedLimiter.ts: a route limit counted in Redis, a few points reserved by each node at a time. */
describe('reserved route limits (redis)', () => {
  let redis: Redis;
  before(async () => {
    redis = new Redis(REDIS_URL);
    // Until it is ready the limiter counts in memory (the last test): the others are about Redis.
    await new Promise((resolve) => redis.once('ready', resolve));
  });
  after(() => redis.quit());

  it('on one node, exact: every point spent once, the remaining count true, then refused until the window ends', async () => {
    const limiter = reservedLimiter(redis, TEST_REDIS_PREFIX, { name: uniqueName(), points: 5, duration: 60, reserve: 3 });
    const spent = [];
    for (let i = 0; i < 7; i++) spent.push(await spend(limiter, 'ip:10.0.0.1'));
    assert.deepEqual(spent.map((s) => [s.allowed, s.remaining]), [[true, 4], [true, 3], [true, 2], [true, 1], [true, 0], [false, 0], [false, 0]]);
    assert.ok(spent[5]!.msBeforeNext > 0 && spent[5]!.msBeforeNext <= 60_000, String(spent[5]!.msBeforeNext));
    assert.equal((await spend(limiter, 'ip:10.0.0.2')).allowed, true, 'another key has its own budget');
  });

  it('two nodes on one Redis: never more than the limit, at most nodes x (reserve - 1) refused early, also all at once', async () => {
    const name = uniqueName();
    const nodes = [0, 1].map(() => reservedLimiter(redis, TEST_REDIS_PREFIX, { name, points: 10, duration: 60, reserve: 4 }));
    const taken = [];
    for (let i = 0; i < 20; i++) taken.push(await spend(nodes[i % 2]!, 'ip:10.0.0.3'));
    const allowed = taken.filter((s) => s.allowed).length;
    assert.ok(allowed <= 10 && allowed >= 10 - 2 * 3, `${allowed} of 10`);
    const atOnce = await Promise.all(Array.from({ length: 60 }, (_, i) => spend(nodes[i % 2]!, 'ip:10.0.0.4')));
    const allowedAtOnce = atOnce.filter((s) => s.allowed).length;
    assert.ok(allowedAtOnce <= 10 && allowedAtOnce >= 10 - 2 * 3, `${allowedAtOnce} of 10 at once`);
  });

  it("shares its budget with the generic stack's limiter of the same name (a request that fell back to it)", async () => {
    const name = uniqueName();
    const generic = limiterFactory(redis, TEST_REDIS_PREFIX)({ name, points: 10, duration: 60 });
    for (let i = 0; i < 8; i++) await generic.consume('ip:10.0.0.5');
    const limiter = reservedLimiter(redis, TEST_REDIS_PREFIX, { name, points: 10, duration: 60, reserve: 4 });
    const spent = [];
    for (let i = 0; i < 4; i++) spent.push(await spend(limiter, 'ip:10.0.0.5'));
    assert.deepEqual(spent.map((s) => [s.allowed, s.remaining]), [[true, 1], [true, 0], [false, 0], [false, 0]]);
    await assert.rejects(generic.consume('ip:10.0.0.5'), 'the generic limiter sees the points as spent');
  });

  it('new keys asked for in one turn share one Redis call, each counted in its own window (some already spent elsewhere)', async () => {
    const name = uniqueName();
    const generic = limiterFactory(redis, TEST_REDIS_PREFIX)({ name, points: 3, duration: 60 });
    for (let i = 0; i < 3; i++) await generic.consume('ip:10.1.0.0'); // spent by another node: refused here too
    await generic.consume('ip:10.1.0.1'); // one point of three taken elsewhere
    const limiter = reservedLimiter(redis, TEST_REDIS_PREFIX, { name, points: 3, duration: 60, reserve: 2 });
    // Counts the limiter's script calls (the command is looked up on the connection at each call).
    const store = redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const script = store.parleyReservePointsOf!;
    let calls = 0;
    store.parleyReservePointsOf = (...args: unknown[]) => (calls++, script.apply(redis, args));
    try {
      const keys = Array.from({ length: 40 }, (_, i) => `ip:10.1.0.${i}`);
      const first = await Promise.all(keys.map((key) => spend(limiter, key)));
      assert.equal(calls, 1, 'one script call for the 40 new keys');
      assert.deepEqual(first.slice(0, 3).map((s) => [s.allowed, s.remaining]), [[false, 0], [true, 1], [true, 2]]);
      assert.ok(first.slice(2).every((s) => s.allowed && s.remaining === 2 && s.msBeforeNext > 0 && s.msBeforeNext <= 60_000));
      // Each key's window holds what it was granted: two more of key 2 get through, the third does not.
      const again = [];
      for (let i = 0; i < 3; i++) again.push(await spend(limiter, 'ip:10.1.0.2'));
      assert.deepEqual(again.map((s) => [s.allowed, s.remaining]), [[true, 1], [true, 0], [false, 0]]);
      await assert.rejects(generic.consume('ip:10.1.0.2'), 'the window in Redis is spent too');
    } finally {
      store.parleyReservePointsOf = script;
    }
  });

  it('counts in memory while Redis is not ready, as the generic limiter does', async () => {
    const offline = new Redis(REDIS_URL, { lazyConnect: true });
    try {
      const limiter = reservedLimiter(offline, TEST_REDIS_PREFIX, { name: uniqueName(), points: 2, duration: 60, reserve: 2 });
      const spent = [];
      for (let i = 0; i < 3; i++) spent.push(await spend(limiter, 'ip:10.0.0.6'));
      assert.deepEqual(spent.map((s) => [s.allowed, s.remaining]), [[true, 1], [true, 0], [false, 0]]);
    } finally {
      offline.disconnect();
    }
  });
});
