import { strict as assert } from 'node:assert';
import { AccessToken } from '../../src/models';
import { issueToken, MAX_API_TOKENS_PER_USER, revokeToken } from '../../src/domain/accounts/tokens';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { randomSecret } from '../../src/security/tokens';
import { AppError } from '../../src/errors';
import { request } from '../support/http';
import * as make from '../support/factories';

const me = (headers: Record<string, string> = {}) => request('GET', '/api/v1/me', { headers });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

function assertRejected(reply: { status: number; body: { message?: unknown } }, status: number) {
  assert.equal(reply.status, status);
  assert.equal(typeof reply.body.message, 'string');
}

describe('bearer authentication: 401 for no valid token, 403 for a wrong surface or a suspended account', () => {
  it('401 without a token, with another scheme, or with a malformed one', async () => {
    const { token } = await make.v1Tenant();
    assertRejected(await me(), 401);
    assertRejected(await me({ Authorization: `Basic ${token}` }), 401);
    assertRejected(await me(bearer('garbage')), 401);
    assertRejected(await me(bearer(`${token}x`)), 401);
    assertRejected(await me({ Authorization: 'Bearer' }), 401);
  });

  it('401 for an unknown id and for a wrong secret on a real id', async () => {
    const { token } = await make.v1Tenant();
    const [id] = token.split('|');
    assertRejected(await me(bearer(`999999999|${randomSecret()}`)), 401);
    assertRejected(await me(bearer(`${id}|${randomSecret()}`)), 401);
    assert.equal((await me(bearer(token))).status, 200);
  });

  it('401 once the token has expired (30 days after issue)', async () => {
    const { owner } = await make.workspace();
    const { plain, token } = await issueToken(owner, 'api');
    const days = (token.expiresAt.getTime() - token.createdAt.getTime()) / 86_400_000;
    assert.ok(Math.abs(days - 30) < 0.01, `lifetime ${days} days`);
    assert.equal((await me(bearer(plain))).status, 200);
    await token.update({ expiresAt: new Date(Date.now() - 1000) });
    assertRejected(await me(bearer(plain)), 401);
  });

  it('401 on the very next request after revocation', async () => {
    const { owner } = await make.workspace();
    const { plain, token } = await issueToken(owner, 'api');
    assert.equal((await me(bearer(plain))).status, 200);
    assert.equal(await revokeToken(token.id), true);
    assertRejected(await me(bearer(plain)), 401);
    assert.equal(await revokeToken(token.id), false, 'revoking twice reports nothing to revoke');
  });

  it('403 for portal and agent tokens on the v1 surface', async () => {
    const { owner } = await make.workspace();
    for (const ability of ['portal', 'agent'] as const) {
      const reply = await me(bearer(await make.token(owner, ability)));
      assertRejected(reply, 403);
      assert.match(reply.body.message, /token/i);
    }
  });

  it('403 for a suspended account and a suspended workspace, 200 again once lifted', async () => {
    const { company, owner } = await make.workspace();
    const token = await make.token(owner);
    await setUserSuspended(owner, true);
    assert.equal((await me(bearer(token))).body.message, 'This account is suspended.');
    await setUserSuspended(owner, false);
    await setWorkspaceSuspended(company, true);
    const reply = await me(bearer(token));
    assertRejected(reply, 403);
    assert.equal(reply.body.message, 'This workspace is suspended.');
    await setWorkspaceSuspended(company, false);
    assert.equal((await me(bearer(token))).status, 200);
  });

  it('stores only a SHA-256 hash and records last use', async () => {
    const { owner } = await make.workspace();
    const { plain, token } = await issueToken(owner, 'api');
    const secret = plain.split('|')[1]!;
    assert.notEqual(token.tokenHash, secret);
    assert.match(token.tokenHash, /^[0-9a-f]{64}$/);
    assert.equal(token.lastUsedAt, null);
    await me(bearer(plain));
    const deadline = Date.now() + 2000;
    while (!(await AccessToken.findByPk(token.id))!.lastUsedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await AccessToken.findByPk(token.id))!.lastUsedAt);
  });

  it('records last use once when many requests with one token arrive at once', async () => {
    const { owner } = await make.workspace();
    const { plain, token } = await issueToken(owner, 'api');
    let writes = 0;
    const count = (instance: AccessToken) => {
      if (instance.id === token.id) writes++;
    };
    // Counted as each write is sent: a write that landed has been counted.
    AccessToken.addHook('beforeUpdate', 'countTouches', count);
    try {
      const replies = await Promise.all(Array.from({ length: 12 }, () => me(bearer(plain))));
      assert.deepEqual(replies.map((reply) => reply.status), Array(12).fill(200));
      const deadline = Date.now() + 2000;
      while (!(await AccessToken.findByPk(token.id))!.lastUsedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok((await AccessToken.findByPk(token.id))!.lastUsedAt);
      assert.equal(writes, 1);
    } finally {
      AccessToken.removeHook('beforeUpdate', 'countTouches');
    }
  });

  it(`allows at most ${MAX_API_TOKENS_PER_USER} live api tokens per user; revoked ones free a slot`, async () => {
    const { owner } = await make.workspace();
    const issued = [];
    for (let i = 0; i < MAX_API_TOKENS_PER_USER; i++) issued.push(await issueToken(owner, 'api'));
    await assert.rejects(issueToken(owner, 'api'), (error: unknown) => error instanceof AppError && error.status === 422);
    await issueToken(owner, 'agent'); // other surfaces have no such cap
    await revokeToken(issued[0]!.token.id);
    await issueToken(owner, 'api');
  });
});
