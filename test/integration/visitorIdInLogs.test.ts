import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { TEST_ENV } from '../support/env';
import { request } from '../support/http';
import { childEnv, Running, SERVER } from '../support/processes';
import * as make from '../support/factories';
import { widgetTenant } from '../support/widget';

/**
 * The widget's visitor id is the only key to a transcript (issue 17): a real web process at trace level
 * answers the state reads with the id in the query and in the X-Visitor-Id header alike, and its whole
 * output never contains the id.
 */
describe('visitor ids in logs', () => {
  it('a web process at trace level never logs the visitor id; the header and the query answer the same', async function () {
    this.timeout(60_000);
    const node = new Running(SERVER, [], { env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'trace', NODE_ID: 'visitor-id-in-logs' }) });
    try {
      const { port } = await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
      const baseUrl = `http://127.0.0.1:${String(port)}`;
      const tenant = await widgetTenant({ withKey: false });
      const visitor = `visitor-${randomBytes(12).toString('hex')}`;
      const other = `visitor-${randomBytes(12).toString('hex')}`;
      const conversation = await make.conversation(tenant.bot, { visitorKey: visitor, messages: [['visitor', 'Hi'], ['assistant', 'Hello!']] });
      const call = (path: string, headers: Record<string, string> = {}) => request('GET', `${tenant.base}${path}`, { baseUrl, headers: { 'X-Forwarded-For': tenant.ip, ...headers } });
      const one = `/conversations/${conversation.publicId}`;

      const latestByQuery = await call(`/conversation?visitor_id=${visitor}`);
      const latestByHeader = await call('/conversation', { 'X-Visitor-Id': visitor });
      const oneByQuery = await call(`${one}?visitor_id=${visitor}&after=0`);
      const oneByHeader = await call(`${one}?after=0`, { 'X-Visitor-Id': visitor });
      const both = await call(`${one}?visitor_id=${visitor}`, { 'X-Visitor-Id': ` ${visitor} ` });
      const differing = await call(`${one}?visitor_id=${other}`, { 'X-Visitor-Id': visitor });
      const neither = await call(one);
      assert.deepEqual(
        [latestByQuery, latestByHeader, oneByQuery, oneByHeader, both, differing, neither].map((reply) => reply.status),
        [200, 200, 200, 200, 200, 422, 422],
      );
      assert.equal(latestByQuery.body.conversation_id, conversation.publicId);
      assert.equal(latestByQuery.body.messages.length, 2);
      assert.deepEqual(latestByHeader.body, latestByQuery.body);
      assert.deepEqual(oneByHeader.body, oneByQuery.body);
      assert.equal(differing.body.code, 'validation_failed');
      assert.ok(!JSON.stringify(differing.body).includes(visitor), 'the rejection does not echo the id');

      // Browsers preflight a request with the header; the widget surface must allow it.
      const preflight = await fetch(`${baseUrl}${tenant.base}/conversation`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-visitor-id' },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Visitor-Id/i);

      // Any route's query string is redacted, even one that does not exist or spells the name encoded.
      await request('GET', `/nowhere?a=1&visitor%5Fid=${visitor}&visitor_id=${other}`, { baseUrl });
      const last = await node.waitForLog((entry) => ((entry.req as { url?: string } | undefined)?.url ?? '').startsWith('/nowhere'), 10_000);
      assert.equal((last.req as { url: string }).url, '/nowhere?a=1&visitor%5Fid=[redacted]&visitor_id=[redacted]');
      const logged = node.logs((entry) => ((entry.req as { url?: string } | undefined)?.url ?? '').includes('visitor_id=[redacted]'));
      assert.ok(logged.length >= 5, `the state reads were logged, redacted (${String(logged.length)} lines)`);

      const output = [...node.lines, node.stderr].join('\n');
      assert.equal(output.includes(visitor), false, output.split('\n').filter((line) => line.includes(visitor)).join('\n'));
      assert.equal(output.includes(other), false, 'the other visitor id is in the output');
    } finally {
      node.child.kill('SIGTERM');
      await node.exitWithin(15_000);
    }
  });
});
