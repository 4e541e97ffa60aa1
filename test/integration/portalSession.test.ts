import { strict as assert } from 'node:assert';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { recordUsage } from '../../src/domain/usage/recordUsage';
import { AccessToken } from '../../src/models';
import { get, request } from '../support/http';
import { cliOk } from '../support/processes';
import * as make from '../support/factories';
import { freshIp, portalLogin, portalTenant } from '../support/portal';

const PASSWORD = 'password-123';
const WRONG = 'These credentials do not match our records.';

describe('portal: login, logout, me', () => {
  it('signs an owner in: a portal token with user, company and brand', async () => {
    const { company, owner } = await make.workspace({ portal: true, plan: 'starter' });
    const reply = await portalLogin(owner.email.toUpperCase(), PASSWORD);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body).sort(), ['brand', 'company', 'token', 'user']);
    assert.match(reply.body.token, /^\d+\|[A-Za-z0-9]{40}$/);
    assert.deepEqual(reply.body.user, { name: owner.name, email: owner.email, role: 'owner' });
    assert.deepEqual(reply.body.company, { name: company.name, plan: 'starter' });
    assert.deepEqual(reply.body.brand, { name: company.name, powered_by: 'Parley', logo_url: 'http://parley.test/brand/logo.svg' });
    const stored = await AccessToken.findByPk(Number(reply.body.token.split('|')[0]));
    assert.equal(stored?.ability, 'portal');
    assert.equal((await get('/api/portal/me', reply.body.token)).status, 200);
  });

  it('admits admins too', async () => {
    const { company } = await make.workspace({ portal: true });
    const admin = await make.user(company, 'admin');
    assert.equal((await portalLogin(admin.email, PASSWORD)).status, 200);
  });

  it('refuses in the same words: wrong password and unknown address (401), portal off, agent, viewer, suspended user or workspace (403)', async () => {
    const { company, owner } = await make.workspace({ portal: true });
    const off = await make.workspace({ portal: false });
    const agent = await make.user(company, 'agent');
    const viewer = await make.user(company, 'viewer');
    const suspendedUser = await make.user(company, 'admin');
    await setUserSuspended(suspendedUser, true);
    const suspended = await make.workspace({ portal: true });
    await setWorkspaceSuspended(suspended.company, true);

    const cases: Array<[string, string, string, number]> = [
      ['wrong password', owner.email, 'not-the-password', 401],
      ['unknown address', 'nobody-here@example.test', PASSWORD, 401],
      ['portal off', off.owner.email, PASSWORD, 403],
      ['agent role', agent.email, PASSWORD, 403],
      ['viewer role', viewer.email, PASSWORD, 403],
      ['suspended user', suspendedUser.email, PASSWORD, 403],
      ['suspended workspace', suspended.owner.email, PASSWORD, 403],
    ];
    for (const [label, email, password, status] of cases) {
      const reply = await portalLogin(email, password);
      assert.equal(reply.status, status, label);
      assert.equal(reply.body.message, WRONG, label);
      assert.equal(reply.body.token, undefined, label);
    }
    assert.equal(await AccessToken.count({ where: { userId: [agent.id, viewer.id, off.owner.id, suspended.owner.id], ability: 'portal' } }), 0);
  });

  it('validates the body (422 with errors per field)', async () => {
    const ip = freshIp();
    for (const [body, field] of [
      [{ password: PASSWORD }, 'email'],
      [{ email: '   ', password: PASSWORD }, 'email'],
      [{ email: `${'a'.repeat(250)}@x.test`, password: PASSWORD }, 'email'],
      [{ email: 'a@b.test' }, 'password'],
      [{ email: 'a@b.test', password: '' }, 'password'],
      [{ email: 'a@b.test', password: 12345678 }, 'password'],
    ] as const) {
      const reply = await request('POST', '/api/portal/login', { body, headers: { 'X-Forwarded-For': ip } });
      assert.equal(reply.status, 422, JSON.stringify(body));
      assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
    }
  });

  it('locks the address after 5 failures, counted with the agent and web sign-ins (429 with Retry-After, even for the right password)', async () => {
    const { owner } = await make.workspace({ portal: true });
    for (let i = 0; i < 4; i++) assert.equal((await portalLogin(owner.email, 'wrong-password')).status, 401);
    // The fifth failure comes from another surface: the counter is shared by every login surface.
    await make.lockoutFailure(owner.email);
    const locked = await portalLogin(owner.email, PASSWORD);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers.get('retry-after')) > 800, `Retry-After ${locked.headers.get('retry-after')}`);
    assert.equal(typeof locked.body.message, 'string');
  });

  it('a successful sign-in clears earlier failures', async () => {
    const { owner } = await make.workspace({ portal: true });
    for (let i = 0; i < 4; i++) await portalLogin(owner.email, 'wrong-password');
    assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200);
    for (let i = 0; i < 4; i++) await portalLogin(owner.email, 'wrong-password');
    assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200, 'four new failures do not lock');
  });

  it('allows 10 attempts per minute per IP address, then 429 with the rate-limit headers', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      const reply = await portalLogin(`nobody-${i}@example.test`, PASSWORD, ip);
      assert.equal(reply.status, 401);
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(9 - i));
    }
    const throttled = await portalLogin('nobody@example.test', PASSWORD, ip);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('x-ratelimit-limit'), '10');
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
    assert.equal((await portalLogin('nobody@example.test', PASSWORD, freshIp())).status, 401, 'another address has its own budget');
  });

  it('logout revokes only the calling token', async () => {
    const { owner } = await make.workspace({ portal: true });
    const first = (await portalLogin(owner.email, PASSWORD)).body.token;
    const second = (await portalLogin(owner.email, PASSWORD)).body.token;
    const reply = await request('POST', '/api/portal/logout', { token: first });
    assert.deepEqual([reply.status, Object.keys(reply.body)], [200, ['message']]);
    assert.equal((await get('/api/portal/me', first)).status, 401);
    assert.equal((await get('/api/portal/me', second)).status, 200);
  });

  it('me: user, company, brand, limits and usage with usage_percent', async () => {
    const { company, owner, token } = await portalTenant('free');
    await make.chatbot(company);
    for (let i = 0; i < 37; i++) await recordUsage({ companyId: company.id, kind: 'reply', provider: 'openai', model: 'gpt-4o-mini', tokensIn: 10, tokensOut: 5 });
    const reply = await get('/api/portal/me', token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      user: { name: owner.name, email: owner.email, role: 'owner' },
      company: { name: company.name, plan: 'free' },
      brand: { name: company.name, powered_by: 'Parley', logo_url: 'http://parley.test/brand/logo.svg' },
      limits: { plan: 'Free', monthly_message_limit: 100, chatbot_limit: 1, agent_seats: 1 },
      usage: { messages_used: 37, message_limit: 100, usage_percent: 37, chatbots: 1 },
    });
  });

  it('me on an unlimited plan: null limit and null usage_percent', async () => {
    const { token } = await portalTenant('enterprise');
    const { body } = await get('/api/portal/me', token);
    assert.equal(body.limits.monthly_message_limit, null);
    assert.deepEqual(body.usage, { messages_used: 0, message_limit: null, usage_percent: null, chatbots: 0 });
  });

  it('serves the brand a workspace set with `parley workspace brand`, and the default logo', async () => {
    const { company, token } = await portalTenant();
    const set = await cliOk(['workspace', 'brand', '--company', String(company.id), '--name', 'Acme Help', '--powered-by', 'Acme', '--logo-url', 'https://cdn.acme.test/logo.png']);
    assert.deepEqual(set.brand, { name: 'Acme Help', powered_by: 'Acme', logo_url: 'https://cdn.acme.test/logo.png' });
    assert.deepEqual((await get('/api/portal/me', token)).body.brand, set.brand);
    // An empty name or logo restores the default; an empty powered-by hides the line (white-label).
    const reset = await cliOk(['workspace', 'brand', '--company', String(company.id), '--name', '', '--powered-by', '']);
    assert.deepEqual(reset.brand, { name: company.name, powered_by: '', logo_url: 'https://cdn.acme.test/logo.png' });

    const logo = await request('GET', '/brand/logo.svg');
    assert.equal(logo.status, 200);
    assert.match(logo.headers.get('content-type') ?? '', /image\/svg\+xml/);
  });

  it('refuses other surfaces\' tokens (403) and missing ones (401)', async () => {
    const { owner } = await portalTenant();
    assert.equal((await get('/api/portal/me')).status, 401);
    assert.equal((await get('/api/portal/me', await make.token(owner, 'api'))).status, 403);
    assert.equal((await get('/api/portal/me', await make.token(owner, 'agent'))).status, 403);
  });
});
