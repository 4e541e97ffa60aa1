import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { RedisMembership } from '../../src/actors/cluster/membership';
import { Presence, presenceChannel, presenceConnectionName } from '../../src/actors/cluster/presence';
import { clusterTiming } from '../../src/actors/cluster/timing';
import { createLogger } from '../../src/logger';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';
import { eventually } from '../support/eventually';

const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to 5 s) for `condition`, failing with `what` if it never holds. */
const until = async (condition: () => boolean | Promise<boolean>, what: string): Promise<void> => assert.ok(await eventually(condition, Boolean, 5_000), what);

describe('membership and presence (real Redis)', () => {
  // Short timings: a 300 ms dead-after, a 1 s grace checked every 250 ms.
  const timing = clusterTiming(100, 300);
  let redis: Redis;
  let prefix: string;
  const stops: Array<() => Promise<void>> = [];

  before(() => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(() => {
    prefix = `${TEST_REDIS_PREFIX}${randomBytes(3).toString('hex')}:`;
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  after(() => redis.quit());

  async function member(self: string): Promise<{ membership: RedisMembership; presence: Presence }> {
    const presence = new Presence(REDIS_URL, prefix, self, timing, logger);
    const membership = new RedisMembership(redis, prefix, self, timing, logger, presence);
    stops.push(async () => {
      await membership.stop();
      await presence.close();
    });
    await membership.start();
    return { membership, presence };
  }

  it('judges each member by the deadline it declared, so members with other timings share a cluster', async () => {
    const { membership } = await member('short:1');
    const now = Number((await redis.time())[0]) * 1000;
    await redis.zadd(`${prefix}members`, now + 60_000, 'long:1', now + 50, 'expiring:1');
    await until(() => !membership.isLive('expiring:1'), 'the member past its own deadline is removed');
    await sleep(3 * timing.deadAfterMs);
    assert.ok(membership.isLive('long:1'), 'a member silent for longer than our dead-after, but within its own, stays');
  });

  it('removes a member whose presence connection closed at the next check, and notes since when', async () => {
    const { membership } = await member('watcher:1');
    // A member registered as a node registers itself, whose process then dies: nothing of it rejoins.
    const connection = new Redis(REDIS_URL, { connectionName: presenceConnectionName(prefix, 'other:1') });
    connection.on('error', () => undefined);
    await connection.subscribe(presenceChannel(prefix, 'other:1', 1));
    await redis.set(`${prefix}presence:other:1`, `1 ${timing.goneGraceMs}`);
    await redis.zadd(`${prefix}members`, Date.now() + 60_000, 'other:1');
    await until(() => membership.isLive('other:1'), 'both listed');
    const line = ((await redis.call('CLIENT', 'LIST')) as string).split('\n').find((l) => l.includes(` name=${presenceConnectionName(prefix, 'other:1')} `));
    assert.ok(line, 'the presence connection carries its member in its name');
    await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!);
    connection.disconnect();
    await until(() => !membership.isLive('other:1'), 'the gone member is removed, long before its deadline');
    assert.ok(await redis.get(`${prefix}gone:other:1:1`), 'the first sighting is noted for the lease grace');
  });

  it('a node whose presence connection is killed while it lives rejoins with its next life', async () => {
    const { membership } = await member('watcher:1');
    const other = await member('other:1');
    await until(() => membership.isLive('other:1') && other.membership.isLive('other:1'), 'both joined');
    const line = ((await redis.call('CLIENT', 'LIST')) as string).split('\n').find((l) => l.includes(` name=${presenceConnectionName(prefix, 'other:1')} `));
    await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line!)![1]!);
    // Whether the watcher saw it gone first or it re-registered first is a race; either way it is back with a new life.
    await until(() => other.presence.life === 2 && other.membership.isLive('other:1') && membership.isLive('other:1'), 'it rejoins');
    assert.equal((await redis.pubsub('NUMSUB', presenceChannel(prefix, 'other:1', 2)))[1], 1);
    assert.equal(await redis.get(`${prefix}presence:other:1`), `2 ${timing.goneGraceMs}`);
  });

  it('vouches for a node only while its pings are answered', async () => {
    const { presence } = await member('pinged:1');
    const vouched = presence.vouchedUntil();
    assert.ok(vouched > performance.now() && vouched <= performance.now() + timing.goneGraceMs - timing.presenceMarginMs);
    await until(() => presence.vouchedUntil() > vouched, 'the next answered ping moves the vouch on');
  });
});
