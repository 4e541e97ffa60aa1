import { strict as assert } from 'node:assert';
import { request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import { newVisitor, widgetTenant } from '../support/widget';

/** Headers whose value differs per answer by nature; their presence is still compared. */
const VARYING = new Set(['date', 'etag', 'x-request-id', 'x-ratelimit-remaining', 'content-length', 'keep-alive', 'connection']);

function headersOf(reply: Reply): Record<string, string> {
  const out: Record<string, string> = {};
  reply.headers.forEach((value, name) => (out[name] = VARYING.has(name) ? '(varies)' : value));
  return out;
}

/**
 * Issue 23: the widget's hot routes are answered ahead of the express stack (src/http/hotRoutes.ts).
 * A request the hot path leaves to the stack (here: the same path with a trailing slash, which
 * express's routing accepts) is the reference: both must answer with the same status, body shape
 * and headers.
 */
describe('hot widget routes answer as the express stack does', () => {
  it('a heartbeat: same status, headers (helmet, CORS, rate limit, request id) and body on both paths', async () => {
    const tenant = await widgetTenant({ withKey: false });
    const visitor = newVisitor();
    const beat = (path: string) =>
      request('POST', path, { body: { visitor_id: visitor, url: 'https://shop.example/a' }, headers: { 'X-Forwarded-For': freshIp(), 'X-Request-Id': 'hot-123' } });
    const hot = await beat(`${tenant.base}/heartbeat`);
    const generic = await beat(`${tenant.base}/heartbeat/`);
    assert.equal(hot.status, 200, JSON.stringify(hot.body));
    assert.equal(generic.status, 200, JSON.stringify(generic.body));
    assert.deepEqual(headersOf(hot), headersOf(generic));
    assert.equal(hot.headers.get('x-request-id'), 'hot-123');
    assert.deepEqual(Object.keys(hot.body).sort(), Object.keys(generic.body).sort());
    assert.equal(hot.headers.get('access-control-allow-origin'), '*');
    assert.ok(hot.headers.get('strict-transport-security'), 'helmet headers');
    assert.equal(hot.headers.get('x-ratelimit-limit'), '240');
  });

  it('rejections: the same 400, 404 and 422 shapes on both paths', async () => {
    const tenant = await widgetTenant({ withKey: false });
    const send = (path: string, options: { body?: unknown; rawBody?: string }) => request('POST', path, { ...options, headers: { 'X-Forwarded-For': freshIp() } });
    const cases: Array<[string, { body?: unknown; rawBody?: string }, number]> = [
      [`${tenant.base}/heartbeat`, { rawBody: '{"visitor_id": ' }, 400],
      [`${tenant.base}/heartbeat`, { rawBody: '"a string"' }, 400],
      [`${tenant.base}/heartbeat`, { body: { visitor_id: newVisitor(), url: 'not a url' } }, 422],
      ['/widget/pk_nope/heartbeat', { body: { visitor_id: newVisitor(), url: 'https://shop.example/' } }, 404],
      [`${tenant.base}/stream`, { body: { visitor_id: newVisitor() } }, 422],
    ];
    for (const [path, options, status] of cases) {
      const hot = await send(path, options);
      const generic = await send(`${path}/`, options);
      assert.equal(hot.status, status, `${path}: ${JSON.stringify(hot.body)}`);
      assert.equal(generic.status, status, `${path}/: ${JSON.stringify(generic.body)}`);
      assert.deepEqual(hot.body, generic.body, path);
      assert.deepEqual(headersOf(hot), headersOf(generic), path);
    }
  });

  it('an empty body is `{}` (422 per field), and a body in another content type goes to the stack', async () => {
    const tenant = await widgetTenant({ withKey: false });
    const empty = await request('POST', `${tenant.base}/heartbeat`, { rawBody: '', headers: { 'X-Forwarded-For': freshIp(), 'Content-Type': 'application/json' } });
    assert.equal(empty.status, 422);
    assert.ok(empty.body.errors.visitor_id && empty.body.errors.url, JSON.stringify(empty.body));
    const text = await request('POST', `${tenant.base}/heartbeat`, { rawBody: 'visitor', headers: { 'X-Forwarded-For': freshIp(), 'Content-Type': 'text/plain' } });
    assert.equal(text.status, 422, 'not parsed as JSON, so the fields are missing');
  });
});
