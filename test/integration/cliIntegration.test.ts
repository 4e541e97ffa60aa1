import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { Integration } from '../../src/models';
import { agentTenant } from '../support/agent';
import { fakeCommerce, server } from '../support/hooks';
import { get } from '../support/http';
import * as make from '../support/factories';
import { cli, cliFails, cliOk, jsonLine } from '../support/processes';
import { stripeCustomer } from '../support/fakeCommerce';

const unique = () => randomBytes(6).toString('hex');

describe('parley integration connect / disconnect (real process)', function () {
  // Every case starts a real `parley` process (about a second each).
  this.timeout(60_000);

  it('connects a Shopify store, printing its settings but never the access token, and stores the token sealed', async () => {
    const { company } = await make.workspace();
    const accessToken = `shpat_${unique()}`;
    const run = await cli(['integration', 'connect', '--company', String(company.id), '--kind', 'shopify', '--store-domain', 'https://Acme-Outdoor.myshopify.com/', '--access-token', accessToken]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(jsonLine(run), { integration: { kind: 'shopify', connected: true, settings: { store_domain: 'acme-outdoor.myshopify.com' } } });
    assert.ok(!run.stdout.includes(accessToken) && !run.stderr.includes(accessToken));

    const rows = await Integration.findAll({ where: { companyId: company.id } });
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]!.settings, { store_domain: 'acme-outdoor.myshopify.com' });
    assert.ok(!rows[0]!.secretEncrypted.includes(accessToken));
    assert.equal(server().ctx.secrets.open(rows[0]!.secretEncrypted), accessToken, 'sealed under the same APP_KEY the web process opens it with');
  });

  it('replaces a connection of the same kind, and the web process then sends the new secret', async () => {
    const { company, bot, token } = await agentTenant();
    const conversation = await make.conversation(bot);
    const email = `ann-${unique()}@example.test`;
    // Signed in with an identity token: only a verified email is looked up.
    await conversation.update({ visitorEmail: email, identity: { sub: 'cust-1', email } });
    const first = `sk_test_${unique()}`;
    const second = `sk_live_${unique()}`;
    fakeCommerce().addStripe({ secretKey: second, customers: [stripeCustomer('cus_1', email, 'Ann')] });

    assert.deepEqual(await cliOk(['integration', 'connect', '--company', String(company.id), '--kind', 'stripe', '--secret-key', first]), {
      integration: { kind: 'stripe', connected: true, settings: {} },
    });
    await cliOk(['integration', 'connect', '--company', String(company.id), '--kind', 'stripe', '--secret-key', second]);
    assert.equal(await Integration.count({ where: { companyId: company.id } }), 1);

    const reply = await get(`/api/agent/conversations/${conversation.publicId}/customer-context`, token);
    assert.deepEqual(reply.body.stripe, { connected: true, data: { found: true, customer: { name: 'Ann', email }, subscriptions: [] } });
    assert.equal(fakeCommerce().requestsWith(first).length, 0);
    assert.ok(fakeCommerce().requestsWith(second).length > 0);
  });

  it('disconnects idempotently, saying whether anything was removed', async () => {
    const { company } = await make.workspace();
    await cliOk(['integration', 'connect', '--company', String(company.id), '--kind', 'stripe', '--secret-key', `rk_test_${unique()}`]);
    assert.deepEqual(await cliOk(['integration', 'disconnect', '--company', String(company.id), '--kind', 'stripe']), {
      integration: { kind: 'stripe', connected: false },
      removed: true,
    });
    assert.deepEqual(await cliOk(['integration', 'disconnect', '--company', String(company.id), '--kind', 'stripe']), {
      integration: { kind: 'stripe', connected: false },
      removed: false,
    });
    assert.equal(await Integration.count({ where: { companyId: company.id } }), 0);
  });

  it('refuses missing, misplaced or malformed flags by name, and an unknown workspace', async () => {
    const { company } = await make.workspace();
    const id = String(company.id);
    const secret = `shpat_${unique()}`;
    for (const [args, field] of [
      [['--kind', 'shopify', '--access-token', secret], 'store-domain'],
      [['--kind', 'shopify', '--store-domain', 'acme.myshopify.com'], 'access-token'],
      [['--kind', 'shopify', '--store-domain', 'acme.myshopify.com/admin?x=1', '--access-token', secret], 'store-domain'],
      [['--kind', 'shopify', '--store-domain', 'localhost', '--access-token', secret], 'store-domain'],
      [['--kind', 'shopify', '--store-domain', 'acme.myshopify.com', '--access-token', secret, '--secret-key', 'sk_test_1'], 'secret-key'],
      [['--kind', 'stripe'], 'secret-key'],
      [['--kind', 'stripe', '--secret-key', secret], 'secret-key'],
      [['--kind', 'stripe', '--secret-key', 'sk_test_1', '--access-token', secret], 'access-token'],
      [['--kind', 'paypal'], 'kind'],
    ] as const) {
      const body = await cliFails(['integration', 'connect', '--company', id, ...args]);
      const errors = body.errors as Record<string, string[]> | undefined;
      assert.ok(errors?.[field]?.length, `${args.join(' ')}: ${JSON.stringify(body)}`);
      assert.ok(!JSON.stringify(body).includes(secret), 'a refused secret is not echoed');
    }
    assert.equal(await Integration.count({ where: { companyId: company.id } }), 0);

    const missing = await cliFails(['integration', 'connect', '--company', '2147483000', '--kind', 'stripe', '--secret-key', 'sk_test_1']);
    assert.equal(missing.message, 'Workspace not found.');
    assert.ok((await cliFails(['integration', 'disconnect', '--company', id, '--kind', 'paypal'])).errors);
  });
});
