import { strict as assert } from 'node:assert';
import { createCannedReply } from '../../src/domain/catalogue/createCannedReply';
import { createTag } from '../../src/domain/catalogue/createTag';
import { CannedReply } from '../../src/models';
import { agentTenant } from '../support/agent';
import { get, request } from '../support/http';
import * as make from '../support/factories';

const canned = (companyId: number, title: string, options: { userId?: number; useCount?: number; lastUsedAt?: Date | null } = {}) =>
  createCannedReply(companyId, { title, shortcut: `/${title.toLowerCase().replaceAll(' ', '-')}`, body: `Body of ${title}`, userId: options.userId }).then((reply) =>
    reply.update({ useCount: options.useCount ?? 0, lastUsedAt: options.lastUsedAt ?? null }),
  );

const markUsed = (id: number | string, token?: string) => request('POST', `/api/agent/canned/${id}/used`, { token });

describe('agent app: tag catalogue', () => {
  it('lists the workspace\'s tags alphabetically, whatever their case, and no other workspace\'s', async () => {
    const { company, token } = await agentTenant();
    const other = await make.workspace();
    const billing = await createTag(company.id, { name: 'billing', color: '#ff0000' });
    const urgent = await createTag(company.id, { name: 'Urgent' });
    const bug = await createTag(company.id, { name: 'Bug', color: '#123456' });
    await createTag(other.company.id, { name: 'Another workspace' });

    const reply = await get('/api/agent/tags', token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      tags: [
        { id: billing.id, name: 'billing', color: '#ff0000' },
        { id: bug.id, name: 'Bug', color: '#123456' },
        { id: urgent.id, name: 'Urgent', color: '#6b7280' },
      ],
    });
  });

  it('answers an empty catalogue with an empty list', async () => {
    const { token } = await agentTenant();
    assert.deepEqual((await get('/api/agent/tags', token)).body, { tags: [] });
  });
});

describe('agent app: canned replies', () => {
  it('lists shared replies and the caller\'s own, most used first, then most recently used, then by title', async () => {
    const { company, agent, token } = await agentTenant();
    const colleague = await make.user(company, 'agent');
    const other = await make.workspace();
    const recent = await canned(company.id, 'Recent', { useCount: 5, lastUsedAt: new Date(Date.now() - 60_000) });
    const older = await canned(company.id, 'Older', { useCount: 5, lastUsedAt: new Date(Date.now() - 3_600_000), userId: agent.id });
    const top = await canned(company.id, 'Top', { useCount: 9 });
    const never = await canned(company.id, 'Never used', { useCount: 5 });
    const zebra = await canned(company.id, 'Zebra');
    const alpha = await canned(company.id, 'Alpha', { userId: agent.id });
    await canned(company.id, 'Colleague\'s own', { useCount: 99, userId: colleague.id });
    await canned(other.company.id, 'Another workspace', { useCount: 99 });

    const reply = await get('/api/agent/canned', token);
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body), ['canned']);
    assert.deepEqual(
      reply.body.canned.map((item: { id: number }) => item.id),
      [top.id, recent.id, older.id, never.id, alpha.id, zebra.id],
    );
    assert.deepEqual(reply.body.canned[0], { id: top.id, title: 'Top', shortcut: '/top', body: 'Body of Top' });
  });

  it('counts a use atomically: use_count and last_used_at rise, and the list reorders', async () => {
    const { company, agent, token } = await agentTenant();
    const shared = await canned(company.id, 'Shared');
    const own = await canned(company.id, 'Own', { userId: agent.id, useCount: 1 });
    const before = new Date();

    const reply = await markUsed(shared.id, token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { ok: true });
    await shared.reload();
    assert.equal(shared.useCount, 1);
    assert.ok(shared.lastUsedAt && shared.lastUsedAt.getTime() >= before.getTime() - 1000, String(shared.lastUsedAt));

    // Ten devices at once: every use is counted (an increment in SQL, not read-modify-write).
    const replies = await Promise.all(Array.from({ length: 10 }, () => markUsed(own.id, token)));
    assert.deepEqual(replies.map((r) => r.status), Array(10).fill(200));
    await own.reload();
    assert.equal(own.useCount, 11);
    assert.ok(own.lastUsedAt);

    assert.deepEqual((await get('/api/agent/canned', token)).body.canned.map((item: { id: number }) => item.id), [own.id, shared.id]);
  });

  it('lets owners and admins count uses too, and refuses viewers (403)', async () => {
    const { company, owner } = await agentTenant();
    const shared = await canned(company.id, 'Shared');
    const admin = await make.user(company, 'admin');
    const viewer = await make.user(company, 'viewer');
    assert.equal((await markUsed(shared.id, await make.token(owner, 'agent'))).status, 200);
    assert.equal((await markUsed(shared.id, await make.token(admin, 'agent'))).status, 200);
    const refused = await markUsed(shared.id, await make.token(viewer, 'agent'));
    assert.equal(refused.status, 403);
    assert.equal(typeof refused.body.message, 'string');
    assert.equal((await shared.reload()).useCount, 2);
  });

  it('refuses another agent\'s own reply with 403 and leaves it untouched', async () => {
    const { company, token } = await agentTenant();
    const colleague = await make.user(company, 'agent');
    const theirs = await canned(company.id, 'Theirs', { userId: colleague.id, useCount: 3 });
    const reply = await markUsed(theirs.id, token);
    assert.equal(reply.status, 403);
    assert.deepEqual(reply.body, { message: 'This canned reply belongs to another agent.', code: 'forbidden' });
    await theirs.reload();
    assert.deepEqual([theirs.useCount, theirs.lastUsedAt], [3, null]);
  });

  it('answers 404 alike for another workspace\'s reply, a missing id and an id that is not an integer', async () => {
    const { token } = await agentTenant();
    const other = await make.workspace();
    const foreign = await canned(other.company.id, 'Foreign');
    const missing = (await CannedReply.max<number, CannedReply>('id')) + 1000;
    for (const id of [foreign.id, missing, 'abc', '1e3', `${foreign.id}abc`, '-1', '0', '99999999999']) {
      const reply = await markUsed(id, token);
      assert.equal(reply.status, 404, String(id));
      assert.deepEqual(reply.body, { message: 'Canned reply not found.', code: 'not_found' }, String(id));
    }
    assert.equal((await foreign.reload()).useCount, 0);
  });

  it('refuses missing tokens (401) and other surfaces\' tokens (403)', async () => {
    const { company, agent } = await agentTenant();
    const shared = await canned(company.id, 'Shared');
    for (const [method, path] of [['GET', '/api/agent/tags'], ['GET', '/api/agent/canned'], ['POST', `/api/agent/canned/${shared.id}/used`]] as const) {
      assert.equal((await request(method, path)).status, 401, path);
      assert.equal((await request(method, path, { token: await make.token(agent, 'api') })).status, 403, path);
    }
    assert.equal((await shared.reload()).useCount, 0);
  });
});
