import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as make from '../support/factories';
import { portalLogin } from '../support/portal';

const PASSWORD = 'password-123';
const WRONG_PASSWORD = 'wrong-password';

/** Each request from its own client address, so only the per-email lockout can refuse it. */
const statuses = async (attempts: Array<Promise<{ status: number }>>) => (await Promise.all(attempts)).map((reply) => reply.status);
const count = (all: number[], status: number) => all.filter((s) => s === status).length;

/** A made-up IPv6 /64 (documentation range) per caller, so per-IP budgets never leak between tests. */
const freshPrefix = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

describe('login lockout under concurrency (issue 17)', () => {
  it('checks at most 5 of 50 parallel wrong passwords for one email, then refuses the right one with 429', async () => {
    const { owner } = await make.workspace({ portal: true });
    const burst = await statuses(Array.from({ length: 50 }, () => portalLogin(owner.email, WRONG_PASSWORD)));
    assert.deepEqual([count(burst, 401), count(burst, 429)], [5, 45], JSON.stringify(burst));
    const locked = await portalLogin(owner.email, PASSWORD);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers.get('retry-after')) > 800, `Retry-After ${locked.headers.get('retry-after')}`);
  });

  it('lets a right password inside a burst sign in only if it reserved one of the 5 attempts; once the lock is on it gets 429', async () => {
    const { owner } = await make.workspace({ portal: true });
    for (let i = 0; i < 4; i++) assert.equal((await portalLogin(owner.email, WRONG_PASSWORD)).status, 401);
    // One attempt is left: of the 21 requests below exactly one may check its password.
    const attempts = Array.from({ length: 20 }, () => portalLogin(owner.email, WRONG_PASSWORD));
    attempts.splice(10, 0, portalLogin(owner.email, PASSWORD));
    const burst = await statuses(attempts);
    const right = burst[10];
    assert.equal(count(burst, 401) + count(burst, 200), 1, JSON.stringify(burst));
    if (right === 200) {
      // It took the last attempt: it signs in and clears the counter, as any success does.
      assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200);
    } else {
      // A wrong password took the last attempt and locked the email: the right one is refused until the lock lapses.
      assert.equal(right, 429);
      assert.equal((await portalLogin(owner.email, PASSWORD)).status, 429);
    }
  });

  it('refuses the right password sent in a burst once the lock is on', async () => {
    const { owner } = await make.workspace({ portal: true });
    await statuses(Array.from({ length: 5 }, () => portalLogin(owner.email, WRONG_PASSWORD)));
    const burst = await statuses([...Array.from({ length: 10 }, () => portalLogin(owner.email, WRONG_PASSWORD)), portalLogin(owner.email, PASSWORD)]);
    assert.deepEqual(burst, Array(11).fill(429));
  });

  it('a success refunds: 4 wrong, 1 right, 4 wrong (each four in parallel) does not lock', async () => {
    const { owner } = await make.workspace({ portal: true });
    assert.deepEqual(await statuses(Array.from({ length: 4 }, () => portalLogin(owner.email, WRONG_PASSWORD))), [401, 401, 401, 401]);
    assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200);
    assert.deepEqual(await statuses(Array.from({ length: 4 }, () => portalLogin(owner.email, WRONG_PASSWORD))), [401, 401, 401, 401]);
    assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200, 'four new failures do not lock');
  });
});

describe('per-IP limits key IPv6 clients by /64 (issue 17)', () => {
  it('two addresses in one /64 share the 10-per-minute login budget; another /64 has its own', async () => {
    const prefix = freshPrefix();
    for (let i = 0; i < 10; i++) {
      const reply = await portalLogin(`nobody-${i}@example.test`, PASSWORD, `${prefix}::${(i % 2) + 1}`);
      assert.equal(reply.status, 401);
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(9 - i));
    }
    assert.equal((await portalLogin('nobody@example.test', PASSWORD, `${prefix}:abcd:ef01:2345:6789`)).status, 429, 'any address in the /64 is spent');
    assert.equal((await portalLogin('nobody@example.test', PASSWORD, `${freshPrefix()}::1`)).status, 401, 'another /64 has its own budget');
  });
});
