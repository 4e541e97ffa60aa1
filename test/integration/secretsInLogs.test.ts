import { strict as assert } from 'node:assert';
import webPush from 'web-push';
import { TEST_ENV } from '../support/env';
import { request } from '../support/http';
import { freshIp } from '../support/portal';
import { childEnv, Running, SERVER } from '../support/processes';
import * as make from '../support/factories';

/**
 * Secrets never reach a log line (issue 9): a real web process at trace level is handed every kind of
 * secret Parley takes (passwords, bearer tokens, a provider key, the VAPID private key), and its whole
 * output is searched for each of them.
 */
describe('secrets in logs', () => {
  it('a web process at trace level logs no password, token, provider key or VAPID private key', async function () {
    this.timeout(60_000);
    const vapid = webPush.generateVAPIDKeys();
    const node = new Running(SERVER, [], {
      env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'trace', NODE_ID: 'secrets-in-logs', VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: 'mailto:ops@parley.test' }),
    });
    try {
      const { port } = await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
      const baseUrl = `http://127.0.0.1:${String(port)}`;
      const { company, owner } = await make.workspace({ portal: true });
      const agent = await make.user(company, 'agent');
      const providerKey = `sk-live-${'k'.repeat(40)}`;
      const headers = { 'X-Forwarded-For': freshIp() };

      const agentLogin = await request('POST', '/api/agent/login', { baseUrl, headers, body: { email: agent.email, password: 'password-123', device_name: 'Phone' } });
      const portalLogin = await request('POST', '/api/portal/login', { baseUrl, headers, body: { email: owner.email, password: 'password-123' } });
      const wrong = await request('POST', '/api/agent/login', { baseUrl, headers, body: { email: agent.email, password: 'not-the-password-987' } });
      assert.deepEqual([agentLogin.status, portalLogin.status, wrong.status], [200, 200, 401]);
      const agentToken = agentLogin.body.token as string;
      const portalToken = portalLogin.body.token as string;
      await request('GET', '/api/agent/me', { baseUrl, token: agentToken });
      await request('PUT', '/api/portal/keys/openai', { baseUrl, token: portalToken, body: { api_key: providerKey } });
      await request('POST', '/api/agent/push/subscriptions', {
        baseUrl,
        token: agentToken,
        body: { endpoint: 'https://push.example.test/send/abc', keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' } },
      });
      await request('POST', '/api/agent/logout', { baseUrl, token: agentToken });
      await node.waitForLog((entry) => (entry.req as { url?: string } | undefined)?.url === '/api/agent/logout', 10_000);

      assert.ok(node.lines.length > 5, 'the server logged the requests');
      const output = [...node.lines, node.stderr].join('\n');
      const secrets = {
        'a password': 'password-123',
        'a wrong password': 'not-the-password-987',
        'the agent token': agentToken.split('|')[1]!,
        'the portal token': portalToken.split('|')[1]!,
        'the provider key': providerKey.slice(0, 20),
        'the VAPID private key': vapid.privateKey,
        'the push auth secret': 'tBHItJI5svbpez7KI4CCXg',
      };
      const leaked = Object.entries(secrets).filter(([, secret]) => output.includes(secret)).map(([name]) => name);
      assert.deepEqual(leaked, []);
    } finally {
      node.child.kill('SIGTERM');
      await node.exitWithin(15_000);
    }
  });
});
