import { strict as assert } from 'node:assert';
import http from 'node:http';
import { healthRoutes } from '../../src/ops/health';
import { request } from '../support/http';
import { serveMiniApp } from '../support/miniApp';
import { TEST_ENV } from '../support/env';
import { childEnv, Running, SERVER } from '../support/processes';

describe('operations endpoints', () => {
  it('GET /healthz answers while the process lives', async () => {
    const reply = await request('GET', '/healthz');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, 'ok');
  });

  it('GET /readyz checks the database, Redis, cluster membership, the node lock and the shards', async () => {
    const reply = await request('GET', '/readyz');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, 'ready');
    assert.deepEqual(reply.body.checks, { database: 'ok', lock: 'ok', redis: 'ok', cluster: 'ok', shards: 'ok' });
  });

  it('GET /readyz answers 503 naming the failing part', async () => {
    const app = await serveMiniApp((a) =>
      a.use(healthRoutes([
        { name: 'database', check: async () => {} },
        { name: 'redis', check: () => Promise.reject(new Error('connection refused')) },
      ])),
    );
    try {
      const reply = await request('GET', '/readyz', { baseUrl: app.url });
      assert.equal(reply.status, 503);
      assert.match(reply.body.message, /redis/);
      assert.deepEqual(reply.body.checks, { database: 'ok', redis: 'connection refused' });
    } finally {
      await app.close();
    }
  });

  it('GET /metrics serves Prometheus text with HTTP latency by route template', async () => {
    await request('GET', '/api/v1/me');
    const reply = await request('GET', '/metrics');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(reply.body, /parley_process_cpu_user_seconds_total/);
    assert.match(reply.body, /parley_http_request_duration_seconds_count\{method="GET",route="unmatched",status="401"\}/);
  });
});

describe('graceful shutdown on SIGTERM', () => {
  it('finishes an in-flight request, then exits 0', async function () {
    this.timeout(30_000);
    const web = new Running(SERVER, [], { env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'info' }) });
    try {
      const { port } = await web.waitForLog((entry) => entry.msg === 'listening', 20_000);
      // A request whose body is still arriving is in flight when the signal lands.
      const inFlight = new Promise<number>((resolve, reject) => {
        const req = http.request(`http://127.0.0.1:${String(port)}/api/v1/me`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.write('{"half":');
        setTimeout(() => req.end('"done"}'), 500);
      });
      await new Promise((r) => setTimeout(r, 150));
      web.child.kill('SIGTERM');
      assert.equal(await inFlight, 401, 'the in-flight request got its answer');
      assert.deepEqual(await web.exitWithin(15_000), { code: 0, signal: null });
      await web.waitForLog((entry) => entry.msg === 'stopped', 1000);
    } finally {
      if (web.running) web.child.kill('SIGKILL');
    }
  });
});
