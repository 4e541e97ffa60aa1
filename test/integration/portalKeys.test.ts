import { strict as assert } from 'node:assert';
import { PROVIDER_SLUGS } from '../../config/providers';
import { ProviderKey } from '../../src/models';
import { get, request } from '../support/http';
import { server } from '../support/hooks';
import * as make from '../support/factories';
import { portalTenant } from '../support/portal';

const KEY = 'sk-test-abcdefghijklmnopqrstuvwxyz-9876';

describe('portal: AI provider keys', () => {
  it('lists every provider with label, last_four and configured, never the key', async () => {
    const { token } = await portalTenant();
    const before = await get('/api/portal/keys', token);
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.data.map((k: { provider: string }) => k.provider), PROVIDER_SLUGS);
    assert.deepEqual(before.body.data[0], { provider: 'claude', label: 'Anthropic Claude', last_four: null, configured: false });

    const saved = await request('PUT', '/api/portal/keys/openai', { token, body: { api_key: KEY } });
    assert.equal(saved.status, 200);
    assert.deepEqual(saved.body, { data: { provider: 'openai', last_four: '9876', configured: true } });
    const after = await get('/api/portal/keys', token);
    assert.deepEqual(after.body.data.find((k: { provider: string }) => k.provider === 'openai'), { provider: 'openai', label: 'OpenAI', last_four: '9876', configured: true });
    for (const body of [saved.body, after.body]) assert.ok(!JSON.stringify(body).includes(KEY.slice(0, 12)));
  });

  it('stores the key sealed under APP_KEY and replaces it on a second PUT', async () => {
    const { company, token } = await portalTenant();
    await request('PUT', '/api/portal/keys/claude', { token, body: { api_key: KEY } });
    await request('PUT', '/api/portal/keys/claude', { token, body: { api_key: '  sk-ant-second-1234 ' } });
    const rows = await ProviderKey.findAll({ where: { companyId: company.id } });
    assert.equal(rows.length, 1);
    assert.ok(!rows[0]!.keyEncrypted.includes('sk-ant'));
    assert.equal(server().ctx.secrets.open(rows[0]!.keyEncrypted), 'sk-ant-second-1234');
    assert.equal(rows[0]!.lastFour, '1234');
  });

  it('deletes idempotently, saying whether anything was set', async () => {
    const { company, token } = await portalTenant();
    await request('PUT', '/api/portal/keys/gemini', { token, body: { api_key: KEY } });
    const first = await request('DELETE', '/api/portal/keys/gemini', { token });
    assert.deepEqual([first.status, first.body], [200, { message: 'The Google Gemini key was removed.' }]);
    const again = await request('DELETE', '/api/portal/keys/gemini', { token });
    assert.deepEqual([again.status, again.body], [200, { message: 'No Google Gemini key was set; nothing was removed.' }]);
    assert.equal(await ProviderKey.count({ where: { companyId: company.id } }), 0);
  });

  it('answers 422 for an unknown slug and for a missing, blank or too long key, saving nothing', async () => {
    const { company, token } = await portalTenant();
    for (const [method, path, body, field] of [
      ['PUT', '/api/portal/keys/chatgpt', { api_key: KEY }, 'provider'],
      ['DELETE', '/api/portal/keys/chatgpt', undefined, 'provider'],
      ['PUT', '/api/portal/keys/openai', {}, 'api_key'],
      ['PUT', '/api/portal/keys/openai', { api_key: '   ' }, 'api_key'],
      ['PUT', '/api/portal/keys/openai', { api_key: 'k'.repeat(301) }, 'api_key'],
      ['PUT', '/api/portal/keys/openai', { api_key: 42 }, 'api_key'],
    ] as const) {
      const reply = await request(method, path, { token, body });
      assert.equal(reply.status, 422, `${method} ${path} ${JSON.stringify(body)}`);
      assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
    }
    assert.equal(await ProviderKey.count({ where: { companyId: company.id } }), 0);
  });

  it('is 401 without a token, 403 for another surface\'s token or a role without manage-workspace, and keeps workspaces apart', async () => {
    const { company, owner, token } = await portalTenant();
    assert.equal((await get('/api/portal/keys')).status, 401);
    assert.equal((await get('/api/portal/keys', await make.token(owner, 'api'))).status, 403);
    const agentToken = await make.token(await make.user(company, 'agent'), 'portal');
    assert.equal((await request('PUT', '/api/portal/keys/openai', { token: agentToken, body: { api_key: KEY } })).status, 403);
    assert.equal((await request('DELETE', '/api/portal/keys/openai', { token: agentToken })).status, 403);

    await request('PUT', '/api/portal/keys/mistral', { token, body: { api_key: KEY } });
    const neighbour = await portalTenant();
    const theirs = await get('/api/portal/keys', neighbour.token);
    assert.equal(theirs.body.data.find((k: { provider: string }) => k.provider === 'mistral').configured, false);
  });
});
