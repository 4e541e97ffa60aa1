import { strict as assert } from 'node:assert';
import { server } from '../support/hooks';
import * as make from '../support/factories';

const raw = (path: string, init: RequestInit = {}) => fetch(`${server().url}${path}`, init);

describe('security headers and CORS', () => {
  it('every surface answers with helmet-style headers and no X-Powered-By', async () => {
    const bot = await make.chatbot((await make.workspace()).company);
    for (const path of ['/healthz', '/api/v1/me', '/api/portal/me', '/api/agent/me', `/widget/${bot.publicKey}/config`, '/widget.js', '/nowhere']) {
      const response = await raw(path);
      const h = response.headers;
      assert.equal(h.get('x-content-type-options'), 'nosniff', path);
      assert.match(h.get('strict-transport-security') ?? '', /max-age=\d+/, path);
      assert.ok(h.get('x-frame-options'), path);
      assert.equal(h.get('referrer-policy'), 'no-referrer', path);
      assert.equal(h.get('x-powered-by'), null, path);
      // widget.js and the widget API are loaded by customers' sites.
      assert.equal(h.get('cross-origin-resource-policy'), 'cross-origin', path);
    }
  });

  it('the widget and the portal API admit any origin without credentials; v1 and the agent API admit none', async () => {
    const bot = await make.chatbot((await make.workspace()).company);
    const preflight = (path: string, method: string) =>
      raw(path, { method: 'OPTIONS', headers: { Origin: 'https://support.customer.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type' } });

    const portal = await preflight('/api/portal/chatbots/pk_x', 'PATCH');
    assert.equal(portal.status, 204);
    assert.equal(portal.headers.get('access-control-allow-origin'), '*');
    assert.match(portal.headers.get('access-control-allow-methods') ?? '', /PATCH/);
    assert.match(portal.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.equal(portal.headers.get('access-control-allow-credentials'), null);
    assert.equal((await raw('/api/portal/me', { headers: { Origin: 'https://support.customer.example' } })).headers.get('access-control-allow-origin'), '*');

    const widget = await preflight(`/widget/${bot.publicKey}/stream`, 'POST');
    assert.deepEqual([widget.status, widget.headers.get('access-control-allow-origin')], [204, '*']);
    assert.doesNotMatch(widget.headers.get('access-control-allow-headers') ?? '', /Authorization/, 'the widget takes no credentials');

    for (const path of ['/api/v1/me', '/api/agent/me']) {
      const answer = await raw(path, { headers: { Origin: 'https://evil.example' } });
      assert.equal(answer.headers.get('access-control-allow-origin'), null, path);
      assert.equal((await preflight(path, 'GET')).headers.get('access-control-allow-origin'), null, path);
    }
  });
});
