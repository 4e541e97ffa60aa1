import { strict as assert } from 'node:assert';
import { Company } from '../../src/models';
import * as factories from '../support/factories';
import { cliFails, cliOk, errorsOf, objectWithKeys } from '../support/processes';

const COMPANY_KEYS = ['id', 'name', 'slug', 'plan'];
const USER_KEYS = ['id', 'name', 'email', 'role'];
const CHATBOT_KEYS = ['id', 'public_key', 'name', 'provider', 'model', 'is_active'];

/** The printed array under `key`, each item checked to have exactly `keys`. */
function listOf(body: Record<string, unknown>, key: string, keys: string[]): Array<Record<string, unknown>> {
  objectWithKeys(body, [key], 'answer');
  const items = body[key];
  assert.ok(Array.isArray(items), `${key} is not an array`);
  return items.map((item, index) => objectWithKeys(item, keys, `${key}[${index}]`));
}

describe('parley workspace list, user list, chatbot list (real process)', function () {
  this.timeout(30_000);

  it('workspace list prints every workspace, oldest first', async () => {
    const { company } = await factories.workspace({ plan: 'starter' });
    const workspaces = listOf(await cliOk(['workspace', 'list']), 'workspaces', COMPANY_KEYS);
    const rows = await Company.findAll({ order: [['id', 'ASC']] });
    assert.deepEqual(
      workspaces,
      rows.map((row) => ({ id: row.id, name: row.name, slug: row.slug, plan: row.plan })),
    );
    assert.deepEqual(workspaces.find((w) => w.id === company.id), { id: company.id, name: company.name, slug: company.slug, plan: 'starter' });
  });

  it("user list prints the workspace's users only, oldest first, never a password hash", async () => {
    const { company, owner } = await factories.workspace();
    const agent = await factories.user(company, 'agent');
    const viewer = await factories.user(company, 'viewer');
    await factories.workspace(); // another workspace's owner must not appear
    const run = await cliOk(['user', 'list', '--company', String(company.id)]);
    assert.deepEqual(
      listOf(run, 'users', USER_KEYS),
      [owner, agent, viewer].map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role })),
    );
    assert.ok(!JSON.stringify(run).includes('scrypt$'));
  });

  it("chatbot list prints the workspace's chatbots only, oldest first, never the identity secret", async () => {
    const { company } = await factories.workspace();
    const first = await factories.chatbot(company, 'First');
    const second = await factories.chatbot(company, 'Second');
    await second.update({ isActive: false });
    const secret = await factories.chatbotIdentitySecret(first);
    await factories.chatbot((await factories.workspace()).company);
    const run = await cliOk(['chatbot', 'list', '--company', String(company.id)]);
    assert.deepEqual(
      listOf(run, 'chatbots', CHATBOT_KEYS),
      [first, second].map((bot) => ({ id: bot.id, public_key: bot.publicKey, name: bot.name, provider: bot.provider, model: bot.model, is_active: bot.isActive })),
    );
    assert.equal(listOf(run, 'chatbots', CHATBOT_KEYS)[1]!.is_active, false);
    assert.ok(!JSON.stringify(run).includes(secret));
  });

  it('prints an empty list for a workspace with none, and fails for an unknown or missing workspace', async () => {
    const { company } = await factories.workspace();
    assert.deepEqual(await cliOk(['chatbot', 'list', '--company', String(company.id)]), { chatbots: [] });
    for (const group of ['user', 'chatbot']) {
      assert.match((await cliFails([group, 'list', '--company', '2147483000'])).message as string, /workspace not found/i, group);
      assert.ok(errorsOf(await cliFails([group, 'list'])).company, group);
    }
    assert.match((await cliFails(['workspace', 'list', '--company', '1'])).message as string, /company/);
  });
});
