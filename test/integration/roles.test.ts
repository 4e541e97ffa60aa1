import { strict as assert } from 'node:assert';
import { ABILITIES, ROLE_NAMES, ROLES, roleCan } from '../../config/roles';
import { authenticate, requireAbility } from '../../src/http/authenticate';
import { request } from '../support/http';
import { serveMiniApp } from '../support/miniApp';
import * as make from '../support/factories';

describe('role abilities: each role opens only the routes its abilities allow', () => {
  it('grants owners and admins everything, agents only conversations, viewers nothing', () => {
    const table = Object.fromEntries(ROLE_NAMES.map((role) => [role, ABILITIES.filter((ability) => roleCan(role, ability))]));
    assert.deepEqual(table, {
      owner: ['manage-workspace', 'manage-chatbots', 'manage-content', 'handle-conversations'],
      admin: ['manage-workspace', 'manage-chatbots', 'manage-content', 'handle-conversations'],
      agent: ['handle-conversations'],
      viewer: [],
    });
    assert.deepEqual(ROLE_NAMES.map((role) => ROLES[role].label), ['Owner', 'Admin', 'Agent', 'Viewer']);
  });

  it('answers 403 over HTTP when the role lacks the route\'s ability', async () => {
    const { company, owner } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const viewer = await make.user(company, 'viewer');
    const app = await serveMiniApp((a) => {
      a.post('/content', authenticate('api'), requireAbility('manage-content'), (_req, res) => res.json({ ok: true }));
      a.post('/conversations', authenticate('api'), requireAbility('handle-conversations'), (_req, res) => res.json({ ok: true }));
    });
    try {
      const call = async (path: string, user: typeof owner) => (await request('POST', path, { baseUrl: app.url, token: await make.token(user) })).status;
      assert.equal(await call('/content', owner), 200);
      assert.equal(await call('/content', agent), 403);
      assert.equal(await call('/conversations', agent), 200);
      assert.equal(await call('/conversations', viewer), 403);
      const refused = await request('POST', '/content', { baseUrl: app.url, token: await make.token(viewer) });
      assert.equal(refused.body.message, 'This action is unauthorized.');
    } finally {
      await app.close();
    }
  });
});
