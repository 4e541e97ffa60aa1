import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { server } from '../support/hooks';
import { ROOT } from '../support/processes';

/** A raw GET, so the test sees the bytes and headers as sent (fetch would decompress). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolveGet, reject) => {
    httpRequest(`${server().url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolveGet({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

const BUILD = resolve(ROOT, 'dist/client/inbox');
const gzipOf = async (path: string) => (await rawGet(path, { 'Accept-Encoding': 'gzip' })).body.length;

describe('web inbox: the app at /inbox', () => {
  it('serves the page with a strict content security policy, gzipped, with an ETag that answers 304', async () => {
    const zipped = await rawGet('/inbox', { 'Accept-Encoding': 'gzip, br' });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['cache-control'], 'no-cache');
    assert.equal(zipped.headers['x-frame-options'], 'DENY');
    const csp = String(zipped.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /connect-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = gunzipSync(zipped.body).toString('utf8');
    assert.ok(html.includes('<script type="module" src="inbox/app.js"></script>'), 'the entry module, relative to /inbox');
    assert.ok(html.includes('<link rel="stylesheet" href="inbox/inbox.css">'));
    assert.ok(html.includes('<link rel="modulepreload" href="inbox/api.js">'), 'the module graph is preloaded, not discovered one import at a time');
    assert.doesNotMatch(html, /\{\{/, 'every placeholder is filled');

    const plain = await rawGet('/inbox');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString('utf8'), html);

    const again = await rawGet('/inbox', { 'If-None-Match': String(zipped.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  it('answers deep links with the page, its asset links relative to the deep path', async () => {
    const deep = await rawGet('/inbox/conversations/8a4f3c1e-2b7d-4e8f-9a1b-3c5d7e9f1a2b?filter=mine');
    assert.equal(deep.status, 200);
    assert.equal(deep.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(deep.body.toString('utf8').includes('<script type="module" src="../app.js"></script>'));
    const slash = await rawGet('/inbox/');
    assert.ok(slash.body.toString('utf8').includes('<script type="module" src="./app.js"></script>'));
    assert.notEqual(deep.headers.etag, slash.headers.etag, 'each copy has its own ETag');
  });

  it('serves every compiled module and the stylesheet with their content types, gzip and ETag', async () => {
    const modules = readdirSync(BUILD).filter((name) => name.endsWith('.js'));
    assert.ok(modules.includes('app.js') && modules.length > 3, `compiled modules: ${modules.join(', ')}`);
    for (const [name, type, source] of [
      ...modules.map((m) => [m, 'application/javascript; charset=utf-8', resolve(BUILD, m)] as const),
      ['inbox.css', 'text/css; charset=utf-8', resolve(ROOT, 'client/inbox/inbox.css')] as const,
    ]) {
      const zipped = await rawGet(`/inbox/${name}`, { 'Accept-Encoding': 'gzip' });
      assert.equal(zipped.status, 200, name);
      assert.equal(zipped.headers['content-type'], type, name);
      assert.equal(zipped.headers['content-encoding'], 'gzip', name);
      assert.ok(gunzipSync(zipped.body).equals(readFileSync(source)), `${name} is served as built`);
      assert.equal((await rawGet(`/inbox/${name}`, { 'If-None-Match': String(zipped.headers.etag) })).status, 304, name);
    }
  });

  it('serves the service worker at /inbox/sw.js (its scope is /inbox/), never preloaded as a module of the page', async () => {
    const worker = await rawGet('/inbox/sw.js');
    assert.equal(worker.status, 200);
    assert.equal(worker.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(worker.headers['cache-control'], 'no-cache', 'browsers check for a new worker on every visit');
    assert.ok(worker.body.equals(readFileSync(resolve(ROOT, 'dist/client/inbox-worker/sw.js'))));
    assert.doesNotMatch(worker.body.toString(), /^\s*(import|export)\b/m, 'a classic script, as every browser runs service workers');
    assert.doesNotMatch((await rawGet('/inbox')).body.toString(), /sw\.js/);
  });

  it('answers 404 for an asset that does not exist, rather than the page', async () => {
    const missing = await rawGet('/inbox/nothing.js');
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /application\/json/);
    assert.equal((await rawGet('/inbox/a/b/c/d/e/f')).status, 404, 'far deeper than any page of the app');
    assert.equal((await rawGet('/inboxes')).status, 404, 'only /inbox and below');
  });

  // 19 KB before notifications, settings and the panels (docs/performance.md "Web inbox size"); 32 KB leaves room, not waste.
  it('stays small: the page, stylesheet and every module together under 32 KB gzipped', async () => {
    const names = ['inbox', 'inbox/inbox.css', ...readdirSync(BUILD).filter((name) => name.endsWith('.js')).map((name) => `inbox/${name}`)];
    let total = 0;
    for (const name of names) total += await gzipOf(`/${name}`);
    assert.ok(total < 32 * 1024, `the web inbox is ${total} bytes gzipped`);
  });
});
