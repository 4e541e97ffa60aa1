import { strict as assert } from 'node:assert';
import { AccessToken } from '../../src/models';
import { revokeToken } from '../../src/domain/accounts/tokens';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { randomSecret } from '../../src/security/tokens';
import { get, request } from '../support/http';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';
import { serveLoggedApp } from '../support/loggedApp';

/**
 * `GET /api/agent/inbox` on its lean path (src/surfaces/agent/leanInbox.ts), off the surface's token
 * gate: these tests first let a token in, then change what it stands on and ask again: the very next
 * request must see the change, and the answers keep the generic stack's shapes, headers and log lines.
 */
const INBOX = '/api/agent/inbox';
const tokenId = (plain: string) => Number(plain.split('|')[0]);

function assertRefused(reply: { status: number; body: { code?: unknown; message?: unknown } }, status: number, error: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body.code, error);
  assert.equal(typeof reply.body.message, 'string');
}

describe('agent inbox, lean path: the token checked on every request', () => {
  it('refuses the very next request after a revocation, a logout or an expiry (401)', async () => {
    const { agent, token } = await agentTenant();
    assert.equal((await get(INBOX, token)).status, 200);
    assert.equal((await get(INBOX, token)).status, 200, 'a token this node has seen');
    assert.equal(await revokeToken(tokenId(token)), true);
    assertRefused(await get(INBOX, token), 401, 'unauthenticated');
    assertRefused(await get(`${INBOX}?filter=waiting`, token), 401, 'unauthenticated');

    const signedIn = await make.token(agent, 'agent');
    assert.equal((await get(INBOX, signedIn)).status, 200);
    assert.equal((await request('POST', '/api/agent/logout', { token: signedIn })).status, 200);
    assertRefused(await get(INBOX, signedIn), 401, 'unauthenticated');

    const expiring = await make.token(agent, 'agent');
    assert.equal((await get(INBOX, expiring)).status, 200);
    await AccessToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id: tokenId(expiring) } });
    assertRefused(await get(INBOX, expiring), 401, 'unauthenticated');
  });

  it('refuses a revocation written behind the domain\'s back (no announcement) as well: nothing is cached', async () => {
    const { token } = await agentTenant();
    assert.equal((await get(INBOX, token)).status, 200);
    await AccessToken.update({ revokedAt: new Date() }, { where: { id: tokenId(token) } });
    assertRefused(await get(INBOX, token), 401, 'unauthenticated');
  });

  it('401 for a wrong secret on a known id, 403 for another surface\'s token, a suspended account or workspace, 200 once lifted', async () => {
    const { company, agent, token } = await agentTenant();
    assert.equal((await get(INBOX, token)).status, 200);
    assertRefused(await get(INBOX, `${tokenId(token)}|${randomSecret()}`), 401, 'unauthenticated');

    const portal = await make.token(agent, 'portal');
    for (let i = 0; i < 2; i++) assertRefused(await get(INBOX, portal), 403, 'forbidden');

    await setUserSuspended(agent, true);
    assertRefused(await get(INBOX, token), 403, 'forbidden');
    await setUserSuspended(agent, false);
    assert.equal((await get(INBOX, token)).status, 200);
    await setWorkspaceSuspended(company, true);
    assertRefused(await get(INBOX, token), 403, 'forbidden');
    await setWorkspaceSuspended(company, false);
    assert.equal((await get(INBOX, token)).status, 200);
  });

  it('checks the token before the query: 401 and 403 come before 422', async () => {
    const { agent, token } = await agentTenant();
    const bad = `${INBOX}?filter=nonsense`;
    assertRefused(await get(bad), 401, 'unauthenticated');
    assertRefused(await get(bad, `${tokenId(token)}|${randomSecret()}`), 401, 'unauthenticated');
    assertRefused(await get(bad, await make.token(agent, 'portal')), 403, 'forbidden');
    assert.equal((await get(bad, token)).status, 422);
    assert.equal((await get(`${INBOX}?before=not-a-cursor`, token)).status, 422);
  });

  it('answers with the headers of the generic stack, and one request log line each, with the request id', async () => {
    const { token } = await agentTenant();
    const lean = await get(INBOX, token);
    // The deep link is the same handler on the generic stack.
    const generic = await get('/api/agent/conversations/00000000-0000-4000-8000-000000000000', token);
    assert.equal(lean.status, 200);
    assert.equal(generic.status, 200);
    const names = (headers: Headers) => [...headers.keys()].filter((name) => !['content-length', 'etag', 'date'].includes(name)).sort();
    assert.deepEqual(names(lean.headers), names(generic.headers));
    assert.ok(lean.headers.get('etag'), 'an ETag, as express sets it');

    const app = await serveLoggedApp();
    try {
      const answers = [
        await request('GET', INBOX, { token, baseUrl: app.url, headers: { 'X-Request-Id': 'lean-inbox-1' } }),
        await request('GET', INBOX, { token: `${tokenId(token)}|${randomSecret()}`, baseUrl: app.url, headers: { 'X-Request-Id': 'lean-inbox-2' } }),
      ];
      assert.deepEqual(answers.map((a) => [a.status, a.headers.get('x-request-id')]), [[200, 'lean-inbox-1'], [401, 'lean-inbox-2']]);
      const lines = app.logs.filter((line) => (line.req as { url?: string } | undefined)?.url?.startsWith(INBOX));
      assert.deepEqual(
        lines.map((line) => [(line.req as { id: string }).id, (line.res as { statusCode: number }).statusCode]),
        [['lean-inbox-1', 200], ['lean-inbox-2', 401]],
      );
    } finally {
      await app.close();
    }
  });
});
