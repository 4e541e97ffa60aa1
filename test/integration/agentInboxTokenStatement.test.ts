import { strict as assert } from 'node:assert';
import { Client } from 'pg';
import { readListAsToken, type TokenCheck } from '../../src/domain/inbox/listAsToken';
import { hashSecret, randomSecret } from '../../src/security/tokens';
import { agentTenant } from '../support/agent';
import { TEST_DATABASE_URL } from '../support/env';
import { get } from '../support/http';

/**
 * The lean inbox list reads the bearer token in the list's own statement (src/domain/inbox/listAsToken.ts):
 * one round trip, nothing cached. These tests change what a token stands on from another connection
 * of their own, as another node or an operator's psql would (no announcement), and require the very
 * next request, and every request started after the change committed, to see it.
 */
const INBOX = '/api/agent/inbox';
const split = (plain: string) => ({ id: Number(plain.split('|')[0]), secret: plain.split('|')[1]! });

async function otherConnection<T>(work: (other: Client) => Promise<T>): Promise<T> {
  const other = new Client({ connectionString: TEST_DATABASE_URL });
  await other.connect();
  try {
    return await work(other);
  } finally {
    await other.end();
  }
}

describe('agent inbox, lean list: the token read in the list\'s statement', () => {
  it('refuses every request started after a revocation committed on another connection, with requests in flight', async () => {
    const { token } = await agentTenant();
    assert.equal((await get(INBOX, token)).status, 200);
    const answers: Array<{ startedAt: number; status: number }> = [];
    let running = true;
    const loop = async () => {
      while (running) {
        const startedAt = performance.now();
        answers.push({ startedAt, status: (await get(INBOX, token)).status });
      }
    };
    const loops = [loop(), loop(), loop()];
    await new Promise((resolve) => setTimeout(resolve, 150));
    const committedAt = await otherConnection(async (other) => {
      await other.query('UPDATE access_tokens SET revoked_at = now() WHERE id = $1', [split(token).id]);
      return performance.now();
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    running = false;
    await Promise.all(loops);
    const before = answers.filter((a) => a.startedAt < committedAt);
    const after = answers.filter((a) => a.startedAt > committedAt);
    assert.ok(before.length > 0 && before.some((a) => a.status === 200), 'requests were let in before the revocation');
    assert.ok(after.length > 0, 'requests were made after the revocation');
    assert.deepEqual([...new Set(after.map((a) => a.status))], [401]);
  });

  it('sees a suspension, its lifting and a removed agent from another connection at the very next request', async () => {
    const { company, agent, token } = await agentTenant();
    await otherConnection(async (other) => {
      assert.equal((await get(INBOX, token)).status, 200);
      await other.query('UPDATE companies SET suspended_at = now() WHERE id = $1', [company.id]);
      assert.equal((await get(INBOX, token)).status, 403);
      await other.query('UPDATE companies SET suspended_at = NULL WHERE id = $1', [company.id]);
      assert.equal((await get(INBOX, token)).status, 200);
      await other.query('UPDATE users SET suspended_at = now() WHERE id = $1', [agent.id]);
      assert.equal((await get(`${INBOX}?filter=mine`, token)).status, 403);
      await other.query('UPDATE users SET suspended_at = NULL WHERE id = $1', [agent.id]);
      assert.equal((await get(`${INBOX}?filter=mine`, token)).status, 200);
      await other.query('UPDATE access_tokens SET expires_at = now() - interval \'1 second\' WHERE id = $1', [split(token).id]);
      assert.equal((await get(INBOX, token)).status, 401);
      await other.query('UPDATE access_tokens SET expires_at = now() + interval \'1 day\' WHERE id = $1', [split(token).id]);
      assert.equal((await get(INBOX, token)).status, 200);
      // Removing the agent removes their tokens (ON DELETE CASCADE): no token row, 401.
      await other.query('DELETE FROM users WHERE id = $1', [agent.id]);
      assert.equal((await get(INBOX, token)).status, 401);
    });
  });

  it('reads the page only for a token the node\'s checks let in, as that token\'s agent in its workspace', async () => {
    const { agent, company, token } = await agentTenant();
    const { id, secret } = split(token);
    const check = (changes: Partial<TokenCheck> = {}): TokenCheck => ({ tokenId: id, tokenHash: hashSecret(secret), now: new Date(), ability: 'agent', ...changes });
    const listing = { filter: 'all' as const };

    const admitted = await readListAsToken(check(), listing);
    assert.equal(admitted.token?.user.id, agent.id);
    assert.equal(admitted.token?.user.company.id, company.id);
    assert.ok(admitted.list, 'the list of a token let in');

    for (const [why, changes] of [
      ['another secret', { tokenHash: hashSecret(randomSecret()) }],
      ['expired at the node\'s clock', { now: new Date(Date.now() + 400 * 24 * 3600 * 1000) }],
      ['another surface', { ability: 'portal' }],
    ] as const) {
      const refused = await readListAsToken(check(changes), listing);
      assert.equal(refused.token?.id, admitted.token?.id, `${why}: the token row still comes back, for the node's own checks`);
      assert.equal(refused.list, undefined, `${why}: no page read`);
    }
    assert.deepEqual(await readListAsToken(check({ tokenId: id + 1_000_000 }), listing), { token: undefined, list: undefined });
  });
});
