import { strict as assert } from 'node:assert';
import { Company, User } from '../../src/models';
import * as make from '../support/factories';
import { get, request } from '../support/http';
import { portalTenant } from '../support/portal';
import { cliFails, cliOk, errorsOf } from '../support/processes';

const DEFAULTS = {
  mode: 'manual',
  capacity: 5,
  accept_seconds: 120,
  business_hours: null,
  offline_message: "We're away right now. Leave your email and we'll get back to you.",
  ai_after_hours: true,
};

const put = (token: string, body: unknown) => request('PUT', '/api/portal/routing', { token, body });

describe('routing settings (portal, CLI) and the agent status switch', function () {
  this.timeout(60_000);

  it('GET answers the defaults; PUT merges a change, keeps the rest and other workspace settings', async () => {
    const t = await portalTenant();
    await Company.update({ settings: { other: 'kept' } }, { where: { id: t.company.id } });
    assert.deepEqual((await get('/api/portal/routing', t.token)).body, { data: DEFAULTS });

    const hours = { timezone: 'Europe/Paris', days: { mon: [['09:00', '12:30'], ['13:30', '18:00']], sat: [] } };
    const changed = await put(t.token, { mode: 'auto', capacity: 3, business_hours: hours });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.data, { ...DEFAULTS, mode: 'auto', capacity: 3, business_hours: hours });
    const again = await put(t.token, { accept_seconds: 30, business_hours: null, ai_after_hours: false });
    assert.deepEqual(again.body.data, { ...DEFAULTS, mode: 'auto', capacity: 3, accept_seconds: 30, ai_after_hours: false });
    await t.company.reload();
    assert.equal(t.company.settings.other, 'kept');
  });

  it('refuses bad values with 422 per field and saves nothing', async () => {
    const t = await portalTenant();
    const refused = await put(t.token, {
      mode: 'robin',
      capacity: 0,
      accept_seconds: 2,
      offline_message: '   ',
      business_hours: { timezone: 'Mars/Olympus', days: { mon: [['17:00', '09:00']], someday: [] } },
      colour: 'red',
    });
    assert.equal(refused.status, 422);
    assert.equal(typeof refused.body.message, 'string');
    const fields = Object.keys(refused.body.errors);
    for (const field of ['mode', 'capacity', 'accept_seconds', 'offline_message', 'business_hours.timezone', 'business_hours.days.mon.0']) {
      assert.ok(fields.includes(field), `${field} in ${fields.join(', ')}`);
    }
    assert.ok(fields.some((field) => field === 'colour' || refused.body.errors[field].join(' ').includes('colour')), fields.join(', '));
    assert.deepEqual((await get('/api/portal/routing', t.token)).body.data, DEFAULTS);
  });

  it('only a manage-workspace role may change them', async () => {
    const { company } = await make.workspace({ portal: true });
    const agent = await make.user(company, 'agent');
    const token = await make.token(agent, 'portal');
    assert.equal((await get('/api/portal/routing', token)).status, 200);
    assert.equal((await put(token, { mode: 'auto' })).status, 403);
  });

  it("PATCH /api/agent/me/status switches the agent's availability; GET shows it with capacity and load", async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const token = await make.token(agent, 'agent');
    const state = await get('/api/agent/me/status', token);
    assert.deepEqual(state.body, { status: 'online', capacity: 5, open_conversations: 0, mode: 'manual', available: false });

    const away = await request('PATCH', '/api/agent/me/status', { token, body: { status: 'away' } });
    assert.deepEqual([away.status, away.body], [200, { status: 'away' }]);
    assert.equal((await User.findByPk(agent.id))!.routingStatus, 'away');
    const bad = await request('PATCH', '/api/agent/me/status', { token, body: { status: 'busy' } });
    assert.equal(bad.status, 422);
    assert.ok(bad.body.errors.status, JSON.stringify(bad.body));

    await agent.update({ capacity: 2 });
    assert.deepEqual((await get('/api/agent/me/status', token)).body, { status: 'away', capacity: 2, open_conversations: 0, mode: 'manual', available: false });
  });

  it('parley routing show|update and user update --capacity (real process)', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    assert.deepEqual(await cliOk(['routing', 'show', '--company', String(company.id)]), { routing: DEFAULTS });

    const hours = JSON.stringify({ timezone: 'America/New_York', days: { fri: [['10:00', '16:00']] } });
    const updated = await cliOk(['routing', 'update', '--company', String(company.id), '--mode', 'auto', '--capacity', '2', '--business-hours-json', hours, '--ai-after-hours', 'false']);
    assert.deepEqual(updated, {
      routing: { ...DEFAULTS, mode: 'auto', capacity: 2, ai_after_hours: false, business_hours: { timezone: 'America/New_York', days: { fri: [['10:00', '16:00']] } } },
    });

    assert.ok(errorsOf(await cliFails(['routing', 'update', '--company', String(company.id), '--capacity', '0', '--mode', 'auto'])).capacity);
    const refused = await cliFails(['routing', 'update', '--company', String(company.id), '--capacity', '4', '--business-hours-json', '{"timezone":"Nowhere/Land","days":{}}']);
    assert.ok(errorsOf(refused)['business_hours.timezone'], JSON.stringify(refused));
    assert.equal(((await cliOk(['routing', 'show', '--company', String(company.id)])).routing as { capacity: number }).capacity, 2, 'nothing saved');

    assert.deepEqual(await cliOk(['user', 'update', '--user', String(agent.id), '--capacity', '3']), {
      user: { id: agent.id, name: agent.name, email: agent.email, role: 'agent', capacity: 3 },
    });
    assert.ok(errorsOf(await cliFails(['user', 'update', '--user', String(agent.id), '--capacity', 'many'])).capacity);
    assert.equal(((await cliOk(['user', 'update', '--user', String(agent.id), '--capacity', ''])).user as { capacity: null }).capacity, null);
  });
});
