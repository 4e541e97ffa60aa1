import { strict as assert } from 'node:assert';
import { ENDPOINTS } from '../../src/surfaces/endpoints';
import { endpointKey, pathParams } from '../../src/openapi/registry';
import { request } from '../support/http';
import { serveLoggedApp } from '../support/loggedApp';
import { serveMiniApp } from '../support/miniApp';
import { freshIp } from '../support/portal';
import { sweepTenant } from '../support/sweepTenant';
import * as make from '../support/factories';
import { validationFailed } from '../../src/errors';

describe('errors: one shape everywhere', () => {
  it('400 with a message for unparsable JSON', async () => {
    const { token } = await make.v1Tenant();
    const reply = await request('POST', '/api/v1/chatbots', { token, rawBody: '{"title": "x",' });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.message, 'The request body is not valid JSON.');
  });

  it('413 with a message for a body over the limit', async () => {
    const { token } = await make.v1Tenant();
    const reply = await request('POST', '/api/v1/me', { token, rawBody: JSON.stringify({ content: 'x'.repeat(9 * 1024 * 1024) }) });
    assert.equal(reply.status, 413);
    assert.equal(typeof reply.body.message, 'string');
  });

  it('admits a 1,000,000-character knowledge text, even of multi-byte characters', async () => {
    const { token, bot } = await make.v1Tenant();
    const reply = await request('POST', `/api/v1/chatbots/${bot.publicKey}/knowledge`, {
      token,
      body: { title: 'x'.repeat(201), content: 'é'.repeat(1_000_000) },
    });
    assert.equal(reply.status, 422, 'parsed and validated, not refused as too large');
    assert.deepEqual(Object.keys(reply.body.errors), ['title']);
  });

  it('404 JSON with a message for unknown routes', async () => {
    const reply = await request('GET', '/no/such/route');
    assert.equal(reply.status, 404);
    assert.equal(reply.body.message, 'The route GET /no/such/route could not be found.');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await request('GET', '/healthz', { headers: { 'X-Request-Id': 'trace-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-123');
    const invented = await request('GET', '/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    assert.match(invented.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('500 with a generic message and request id for unexpected errors, never their text', async () => {
    const app = await serveMiniApp((a) => {
      a.get('/boom', () => {
        throw new Error('password=hunter2 leaked from a driver');
      });
      a.get('/invalid', () => {
        throw validationFailed({ title: ['The title field is required.'] });
      });
    });
    try {
      const boom = await request('GET', '/boom', { baseUrl: app.url });
      assert.equal(boom.status, 500);
      assert.ok(!JSON.stringify(boom.body).includes('hunter2'));
      assert.equal(typeof boom.body.message, 'string');
      assert.equal(boom.body.request_id, boom.headers.get('x-request-id') ?? boom.body.request_id);
      const invalid = await request('GET', '/invalid', { baseUrl: app.url });
      assert.equal(invalid.status, 422);
      assert.deepEqual(invalid.body, {
        message: 'The title field is required.',
        code: 'validation_failed',
        errors: { title: ['The title field is required.'] },
      });
    } finally {
      await app.close();
    }
  });

  it('400 JSON for a path that does not percent-decode (`%FF`), on every route with a path parameter, and no error logged', async function () {
    this.timeout(60_000);
    const tenant = await sweepTenant({ liveVisitor: false });
    const app = await serveLoggedApp();
    try {
      const answers: string[] = [];
      for (const endpoint of ENDPOINTS) {
        const token = endpoint.auth === 'none' ? undefined : tenant.tokens[endpoint.auth];
        for (const broken of pathParams(endpoint.path)) {
          // The other parameters name real records, so only the broken one can be the problem.
          const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === broken ? 'x%FFy' : encodeURIComponent(tenant.params[name]!)));
          const reply = await request(endpoint.method.toUpperCase(), path, { token, baseUrl: app.url, headers: { 'X-Forwarded-For': freshIp() } });
          const body = reply.body as Record<string, unknown>;
          if (reply.status !== 400 || body.code !== 'bad_request' || typeof body.message !== 'string') answers.push(`${endpointKey(endpoint)} {${broken}}: ${reply.status} ${JSON.stringify(body)}`);
        }
      }
      for (const path of ['/widget/%FF/config', '/api/v1/chatbots/%FF']) {
        const reply = await request('GET', path, { token: path.startsWith('/api/v1') ? tenant.tokens.api : undefined, baseUrl: app.url, headers: { 'X-Forwarded-For': freshIp() } });
        assert.deepEqual([reply.status, reply.body.code], [400, 'bad_request'], path);
        assert.match(reply.body.message, /percent-encoded/);
      }
      assert.deepEqual(answers, []);
      const errors = app.logs.filter((line) => Number(line.level) >= 50);
      assert.deepEqual(errors.map((line) => line.msg), [], 'a client mistake is never logged at error level');
      assert.ok(app.logs.some((line) => (line.res as { statusCode?: number } | undefined)?.statusCode === 400 && line.level === 30), 'each 400 is an info line');
    } finally {
      await app.close();
    }
  });
});

