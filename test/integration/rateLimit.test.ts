import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { authenticate } from '../../src/http/authenticate';
import { rateLimit } from '../../src/http/rateLimit';
import { limiterFactory, type LimiterFactory } from '../../src/limits/limiters';
import { LoginLockout } from '../../src/domain/accounts/loginLockout';
import { AppError } from '../../src/errors';
import { request } from '../support/http';
import { serveMiniApp } from '../support/miniApp';
import { REDIS_URL, TEST_REDIS_PREFIX } from '../support/env';
import * as make from '../support/factories';

const stores: Array<[string, () => LimiterFactory]> = [];
let redis: Redis;

before(() => {
  redis = new Redis(REDIS_URL);
});
after(() => redis.quit());
stores.push(['memory', () => limiterFactory(undefined, TEST_REDIS_PREFIX)]);
stores.push(['redis', () => limiterFactory(redis, TEST_REDIS_PREFIX)]);

const uniqueName = () => `test-${randomBytes(4).toString('hex')}`;

for (const [store, factory] of stores) {
  describe(`rate limits (${store} store)`, () => {
    it('answers 429 with Retry-After and X-RateLimit headers once the IP spends its points', async () => {
      const app = await serveMiniApp((a) => a.get('/limited', rateLimit(factory(), { name: uniqueName(), points: 3, duration: 60, by: 'ip' }), (_req, res) => res.json({ ok: true })));
      try {
        for (const remaining of ['2', '1', '0']) {
          const reply = await request('GET', '/limited', { baseUrl: app.url });
          assert.equal(reply.status, 200);
          assert.equal(reply.headers.get('x-ratelimit-limit'), '3');
          assert.equal(reply.headers.get('x-ratelimit-remaining'), remaining);
        }
        const throttled = await request('GET', '/limited', { baseUrl: app.url });
        assert.equal(throttled.status, 429);
        assert.equal(typeof throttled.body.message, 'string');
        assert.equal(throttled.headers.get('x-ratelimit-limit'), '3');
        assert.equal(throttled.headers.get('x-ratelimit-remaining'), '0');
        const retryAfter = Number(throttled.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      } finally {
        await app.close();
      }
    });

    it('counts signed-in users separately', async () => {
      const a = await make.v1Tenant();
      const b = await make.v1Tenant();
      const app = await serveMiniApp((x) =>
        x.get('/mine', authenticate('api'), rateLimit(factory(), { name: uniqueName(), points: 1, duration: 60, by: 'user' }), (_req, res) => res.json({ ok: true })),
      );
      try {
        assert.equal((await request('GET', '/mine', { baseUrl: app.url, token: a.token })).status, 200);
        assert.equal((await request('GET', '/mine', { baseUrl: app.url, token: a.token })).status, 429);
        assert.equal((await request('GET', '/mine', { baseUrl: app.url, token: b.token })).status, 200, 'another user has its own budget');
      } finally {
        await app.close();
      }
    });
  });

  describe(`login lockout (${store} store)`, () => {
    const fail = async (lockout: LoginLockout, email: string) => (await lockout.begin(email)).failed();
    const isLocked = async (lockout: LoginLockout, email: string) =>
      lockout.begin(email).then(
        () => false,
        (error: unknown) => {
          assert.ok(error instanceof AppError && error.status === 429);
          assert.ok(Number(error.details.headers?.['Retry-After']) > 14 * 60, 'locked for about 15 minutes');
          return true;
        },
      );

    it('locks an email after 5 failures within the window, whatever its case, and only that email', async () => {
      const lockout = new LoginLockout(factory());
      const email = `${uniqueName()}@example.test`;
      for (let i = 0; i < 4; i++) await fail(lockout, email);
      await fail(lockout, email.toUpperCase());
      assert.equal(await isLocked(lockout, email), true);
      assert.equal(await isLocked(lockout, `other-${email}`), false);
      await lockout.clear(email);
      assert.equal(await isLocked(lockout, email), false, 'a successful sign-in clears the counter');
    });

    it('reserves attempts atomically: of 20 begun at once, exactly 5 get to check a password', async () => {
      const lockout = new LoginLockout(factory());
      const email = `${uniqueName()}@example.test`;
      const settled = await Promise.allSettled(Array.from({ length: 20 }, () => lockout.begin(email)));
      assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 5);
    });

    it('refunds an abandoned attempt: it does not count towards the lock', async () => {
      const lockout = new LoginLockout(factory());
      const email = `${uniqueName()}@example.test`;
      for (let i = 0; i < 4; i++) await fail(lockout, email);
      await (await lockout.begin(email)).abandoned();
      assert.equal(await isLocked(lockout, email), false);
    });
  });

}

describe('login lockout across surfaces and nodes (redis)', () => {
  it('shares one counter between two independent lockout instances', async () => {
    const portal = new LoginLockout(limiterFactory(redis, TEST_REDIS_PREFIX));
    const agent = new LoginLockout(limiterFactory(redis, TEST_REDIS_PREFIX));
    const email = `${uniqueName()}@example.test`;
    for (let i = 0; i < 3; i++) await (await portal.begin(email)).failed();
    for (let i = 0; i < 2; i++) await (await agent.begin(email)).failed();
    await assert.rejects(portal.begin(email), (e: unknown) => e instanceof AppError && e.status === 429);
    await assert.rejects(agent.begin(email), (e: unknown) => e instanceof AppError && e.status === 429);
  });
});
