import { strict as assert } from 'node:assert';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { AccessToken } from '../../src/models';
import { agentTenant } from '../support/agent';
import { get, request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import * as make from '../support/factories';

const PASSWORD = 'password-123';
const WRONG = 'These credentials do not match our records.';
const REFUSED = 'This account cannot use the agent app, or its workspace is unavailable.';
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;
const DAY_MS = 24 * 3600 * 1000;

const agentLogin = (body: Record<string, unknown>, ip = freshIp()): Promise<Reply> =>
  request('POST', '/api/agent/login', { body, headers: { 'X-Forwarded-For': ip } });

const tokenId = (plain: string) => Number(plain.split('|')[0]);

/** The SVG inside an inline avatar. */
function svgOf(avatar: string): string {
  const prefix = 'data:image/svg+xml;base64,';
  assert.ok(avatar.startsWith(prefix), avatar.slice(0, 40));
  return Buffer.from(avatar.slice(prefix.length), 'base64').toString('utf8');
}

describe('agent app: login', () => {
  it('signs an agent in: a 30-day agent token for the device, with user and company', async () => {
    const { company } = await make.workspace({ plan: 'starter' });
    const agent = await make.user(company, 'agent', 'Ada Lovelace');
    const before = Date.now();
    const reply = await agentLogin({ email: agent.email.toUpperCase(), password: PASSWORD, device_name: '  Ada’s iPhone  ' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body), ['token', 'expires_at', 'device_name', 'user', 'company']);
    assert.match(reply.body.token, /^\d+\|[A-Za-z0-9]{40}$/);
    assert.equal(reply.body.device_name, 'Ada’s iPhone');
    const { avatar, ...user } = reply.body.user;
    assert.deepEqual(user, { id: agent.id, name: 'Ada Lovelace', email: agent.email, role: 'Agent' });
    assert.match(svgOf(avatar), />AL<\/text><\/svg>$/);
    assert.deepEqual(reply.body.company, { id: company.id, name: company.name, plan: 'starter' });

    const stored = await AccessToken.findByPk(tokenId(reply.body.token), { rejectOnEmpty: true });
    assert.deepEqual([stored.ability, stored.userId, stored.companyId, stored.deviceName, stored.revokedAt], ['agent', agent.id, company.id, 'Ada’s iPhone', null]);
    assert.match(reply.body.expires_at, ISO_WITH_OFFSET);
    const expires = new Date(reply.body.expires_at).getTime();
    assert.equal(expires, Math.floor(stored.expiresAt.getTime() / 1000) * 1000);
    assert.ok(expires >= before + 30 * DAY_MS - 2000 && expires <= Date.now() + 30 * DAY_MS, reply.body.expires_at);
    assert.equal((await get('/api/agent/me', reply.body.token)).status, 200);
  });

  it('admits owners and admins with their role labels; device_name is optional (null)', async () => {
    const { company, owner } = await make.workspace();
    const admin = await make.user(company, 'admin');
    const asOwner = await agentLogin({ email: owner.email, password: PASSWORD });
    assert.equal(asOwner.status, 200);
    assert.equal(asOwner.body.user.role, 'Owner');
    assert.equal(asOwner.body.device_name, null);
    const asAdmin = await agentLogin({ email: admin.email, password: PASSWORD, device_name: '   ' });
    assert.equal(asAdmin.body.user.role, 'Admin');
    assert.equal(asAdmin.body.device_name, null, 'a blank name is no name');
  });

  it('refuses wrong credentials with 401 in one wording, and viewers or anything suspended with a vague 403', async () => {
    const { company, owner } = await make.workspace();
    const viewer = await make.user(company, 'viewer');
    const suspendedUser = await make.user(company, 'agent');
    await setUserSuspended(suspendedUser, true);
    const suspended = await make.workspace();
    const suspendedAgent = await make.user(suspended.company, 'agent');
    await setWorkspaceSuspended(suspended.company, true);

    const wrong = { message: WRONG, code: 'invalid_credentials' };
    const refused = { message: REFUSED, code: 'forbidden' };
    const cases: Array<[string, string, string, number, object]> = [
      ['wrong password', owner.email, 'not-the-password', 401, wrong],
      ['unknown address', 'nobody-here@example.test', PASSWORD, 401, wrong],
      ['viewer seat', viewer.email, PASSWORD, 403, refused],
      ['suspended user', suspendedUser.email, PASSWORD, 403, refused],
      ['suspended workspace (owner)', suspended.owner.email, PASSWORD, 403, refused],
      ['suspended workspace (agent)', suspendedAgent.email, PASSWORD, 403, refused],
    ];
    for (const [label, email, password, status, body] of cases) {
      const reply = await agentLogin({ email, password });
      assert.equal(reply.status, status, label);
      assert.deepEqual(reply.body, body, label);
    }
    const userIds = [owner.id, viewer.id, suspendedUser.id, suspended.owner.id, suspendedAgent.id];
    assert.equal(await AccessToken.count({ where: { userId: userIds } }), 0, 'no token was issued');
  });

  it('validates the body (422 with errors per field)', async () => {
    const ip = freshIp();
    for (const [body, field] of [
      [{ password: PASSWORD }, 'email'],
      [{ email: '  ', password: PASSWORD }, 'email'],
      [{ email: `${'a'.repeat(250)}@x.test`, password: PASSWORD }, 'email'],
      [{ email: 'a@b.test' }, 'password'],
      [{ email: 'a@b.test', password: '' }, 'password'],
      [{ email: 'a@b.test', password: PASSWORD, device_name: 'd'.repeat(121) }, 'device_name'],
      [{ email: 'a@b.test', password: PASSWORD, device_name: 42 }, 'device_name'],
    ] as const) {
      const reply = await agentLogin(body, ip);
      assert.equal(reply.status, 422, JSON.stringify(body));
      assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
      assert.equal(typeof reply.body.message, 'string');
    }
    const longest = await make.user((await make.workspace()).company, 'agent');
    assert.equal((await agentLogin({ email: longest.email, password: PASSWORD, device_name: 'd'.repeat(120) })).status, 200, '120 characters fit');
  });

  it('shares the lockout with the portal and web sign-in: 429 with Retry-After, even for the right password', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    for (let i = 0; i < 4; i++) assert.equal((await agentLogin({ email: agent.email, password: 'wrong-password' })).status, 401);
    await make.lockoutFailure(agent.email);
    const locked = await agentLogin({ email: agent.email, password: PASSWORD });
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers.get('retry-after')) > 800, `Retry-After ${locked.headers.get('retry-after')}`);
    assert.equal(typeof locked.body.message, 'string');
    assert.equal(locked.body.token, undefined);
  });

  it('a viewer\'s right password does not count towards the lockout', async () => {
    const { company } = await make.workspace();
    const viewer = await make.user(company, 'viewer');
    for (let i = 0; i < 6; i++) assert.equal((await agentLogin({ email: viewer.email, password: PASSWORD })).status, 403);
  });

  it('allows 10 attempts per minute per IP address, then 429 with the rate-limit headers', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      const reply = await agentLogin({ email: `nobody-${i}@example.test`, password: PASSWORD }, ip);
      assert.equal(reply.status, 401);
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(9 - i));
    }
    const throttled = await agentLogin({ email: 'nobody@example.test', password: PASSWORD }, ip);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('x-ratelimit-limit'), '10');
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
    assert.equal((await agentLogin({ email: 'nobody@example.test', password: PASSWORD }, freshIp())).status, 401, 'another address has its own budget');
  });
});

describe('agent app: me, refresh, logout', () => {
  it('me: the caller, the company, and the calling token\'s expiry and device', async () => {
    const { company } = await make.workspace({ plan: 'enterprise' });
    const agent = await make.user(company, 'agent', 'grace  hopper');
    const login = await agentLogin({ email: agent.email, password: PASSWORD, device_name: 'Desk' });
    const reply = await get('/api/agent/me', login.body.token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      user: { id: agent.id, name: 'grace  hopper', email: agent.email, role: 'Agent', avatar: login.body.user.avatar },
      company: { id: company.id, name: company.name, plan: 'enterprise' },
      expires_at: login.body.expires_at,
      device_name: 'Desk',
    });
    assert.match(svgOf(reply.body.user.avatar), />GH<\/text>/);
  });

  it('serves a stored avatar URL as is, else a stable initials picture', async () => {
    const { agent, token } = await agentTenant();
    const generated = (await get('/api/agent/me', token)).body.user.avatar;
    assert.equal((await get('/api/agent/me', token)).body.user.avatar, generated, 'stable across requests');
    await agent.update({ avatarUrl: 'https://cdn.example.test/ada.png' });
    assert.equal((await get('/api/agent/me', token)).body.user.avatar, 'https://cdn.example.test/ada.png');
  });

  it('refresh: a new token with the same response shape and device; the old one keeps working', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const login = await agentLogin({ email: agent.email, password: PASSWORD, device_name: 'Pixel 8' });
    const reply = await request('POST', '/api/agent/refresh', { token: login.body.token });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body), ['token', 'expires_at', 'device_name', 'user', 'company']);
    assert.notEqual(reply.body.token, login.body.token);
    assert.equal(reply.body.device_name, 'Pixel 8');
    assert.deepEqual(reply.body.user, login.body.user);
    assert.deepEqual(reply.body.company, login.body.company);
    assert.match(reply.body.expires_at, ISO_WITH_OFFSET);
    assert.ok(new Date(reply.body.expires_at) >= new Date(login.body.expires_at));

    const fresh = await AccessToken.findByPk(tokenId(reply.body.token), { rejectOnEmpty: true });
    assert.deepEqual([fresh.ability, fresh.userId, fresh.deviceName], ['agent', agent.id, 'Pixel 8']);
    const old = await AccessToken.findByPk(tokenId(login.body.token), { rejectOnEmpty: true });
    assert.equal(old.revokedAt, null, 'the old token is not revoked');
    assert.equal((await get('/api/agent/me', login.body.token)).status, 200);
    assert.equal((await get('/api/agent/me', reply.body.token)).body.device_name, 'Pixel 8');
  });

  it('refresh: 6 per 60 minutes per user, counted across all of the user\'s tokens', async () => {
    const { agent, token } = await agentTenant();
    const second = await make.token(agent, 'agent');
    for (let i = 0; i < 6; i++) {
      const reply = await request('POST', '/api/agent/refresh', { token: i % 2 ? second : token });
      assert.equal(reply.status, 200, `refresh ${i + 1}`);
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(5 - i));
    }
    const throttled = await request('POST', '/api/agent/refresh', { token });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('x-ratelimit-limit'), '6');
    assert.ok(Number(throttled.headers.get('retry-after')) > 3000, `Retry-After ${throttled.headers.get('retry-after')}`);
    assert.equal(typeof throttled.body.message, 'string');
    const other = await agentTenant();
    assert.equal((await request('POST', '/api/agent/refresh', { token: other.token })).status, 200, 'another user has their own budget');
  });

  it('logout ends the whole session: the token it was refreshed from and every refresh of it answer 401; another sign-in lives on', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const signIn = (await agentLogin({ email: agent.email, password: PASSWORD })).body.token;
    const refreshed = (await request('POST', '/api/agent/refresh', { token: signIn })).body.token;
    const refreshedAgain = (await request('POST', '/api/agent/refresh', { token: refreshed })).body.token;
    const elsewhere = (await agentLogin({ email: agent.email, password: PASSWORD })).body.token;
    const families = await Promise.all([signIn, refreshed, refreshedAgain, elsewhere].map(async (plain) => (await AccessToken.findByPk(tokenId(plain), { rejectOnEmpty: true })).family));
    assert.equal(new Set(families.slice(0, 3)).size, 1, 'refreshes join the family of the sign-in');
    assert.notEqual(families[3], families[0], 'another sign-in starts its own');

    assert.equal((await request('POST', '/api/agent/logout', { token: refreshed })).status, 200);
    for (const plain of [signIn, refreshed, refreshedAgain]) {
      assert.equal((await get('/api/agent/me', plain)).status, 401);
      assert.ok((await AccessToken.findByPk(tokenId(plain), { rejectOnEmpty: true })).revokedAt);
    }
    assert.equal((await get('/api/agent/me', elsewhere)).status, 200);
  });

  it('logout revokes the calling token (and its family), not the user\'s other sign-ins', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const first = (await agentLogin({ email: agent.email, password: PASSWORD })).body.token;
    const second = (await agentLogin({ email: agent.email, password: PASSWORD })).body.token;
    const reply = await request('POST', '/api/agent/logout', { token: first });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { message: 'Signed out.' });
    assert.ok((await AccessToken.findByPk(tokenId(first), { rejectOnEmpty: true })).revokedAt);
    for (const [method, path] of [['GET', '/api/agent/me'], ['POST', '/api/agent/refresh'], ['POST', '/api/agent/logout']] as const) {
      assert.equal((await request(method, path, { token: first })).status, 401, path);
    }
    assert.equal((await get('/api/agent/me', second)).status, 200);
  });

  it('refuses missing tokens (401), other surfaces\' tokens and suspended accounts (403)', async () => {
    const { company, agent, token } = await agentTenant();
    for (const [method, path] of [['GET', '/api/agent/me'], ['POST', '/api/agent/refresh'], ['POST', '/api/agent/logout']] as const) {
      assert.equal((await request(method, path)).status, 401, path);
      assert.equal((await request(method, path, { token: 'not-a-token' })).status, 401, path);
      assert.equal((await request(method, path, { token: await make.token(agent, 'api') })).status, 403, path);
      assert.equal((await request(method, path, { token: await make.token(agent, 'portal') })).status, 403, path);
    }
    await setWorkspaceSuspended(company, true);
    assert.equal((await request('POST', '/api/agent/refresh', { token })).status, 403);
    assert.equal(await AccessToken.count({ where: { userId: agent.id, ability: 'agent' } }), 1, 'refused refreshes issue nothing');
  });
});
