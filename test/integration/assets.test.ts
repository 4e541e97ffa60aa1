import { strict as assert } from 'node:assert';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { server } from '../support/hooks';
import { Deployment } from '../support/cluster/deployment';
import { ROOT, Running, SERVER } from '../support/processes';
import { parseSse } from '../support/sse';

/** A raw GET, so the test sees the bytes and headers as sent (fetch would decompress). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolveGet, reject) => {
    httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolveGet({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('browser assets: widget.js and the demo page', () => {
  const source = readFileSync(resolve(ROOT, 'client/widget/widget.js'));

  it('serves widget.js gzipped to clients that accept it, with an ETag that answers 304', async () => {
    const zipped = await rawGet(`${server().url}/widget.js`, { 'Accept-Encoding': 'gzip, br' });
    assert.equal(zipped.status, 200);
    assert.match(String(zipped.headers['content-type']), /^application\/javascript/);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(zipped.body).equals(source));
    assert.ok(zipped.body.length <= 30 * 1024, `widget.js is ${zipped.body.length} bytes gzipped (goal: 30 KB)`);
    assert.equal(zipped.headers['access-control-allow-origin'], '*');

    const plain = await rawGet(`${server().url}/widget.js`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.equals(source));

    const again = await rawGet(`${server().url}/widget.js`, { 'If-None-Match': String(zipped.headers.etag) });
    assert.equal(again.status, 304);
  });

  it('serves the Socket.IO client script and lets Engine.IO alone answer its path (polling included)', async () => {
    const script = await rawGet(`${server().url}/socket.io/socket.io.min.js`);
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    const handshake = await rawGet(`${server().url}/socket.io/?EIO=4&transport=polling`);
    assert.equal(handshake.status, 200);
    assert.match(handshake.body.toString(), /"sid"/);
    assert.equal((await rawGet(`${server().url}/healthz`)).status, 200, 'the server is still up');
  });

  it('has no demo page in cluster mode', async () => {
    assert.equal((await rawGet(`${server().url}/`)).status, 404);
  });

  describe('the demo workspace on a single node with its own database', function () {
    this.timeout(60_000);
    // Its own database: a single node fences all 1024 shards, which would unseat the suite's cluster node.
    let deployment: Deployment;
    let dataDir: string;
    before(async () => {
      deployment = await Deployment.create({ singleNode: true });
      dataDir = await mkdtemp(join(tmpdir(), 'parley-demo-page-'));
    });
    after(async () => {
      await deployment.destroy();
      await rm(dataDir, { recursive: true, force: true });
    });

    async function withNode(env: Record<string, string>, test: (base: string, node: Running) => Promise<void>): Promise<void> {
      const node = new Running(SERVER, [], { env: deployment.env({ NODE_ID: 'demo-page', DATA_DIR: dataDir, ...env }) });
      try {
        const { port } = await node.waitForLog((entry) => entry.msg === 'listening', 30_000);
        await test(`http://127.0.0.1:${String(port)}`, node);
      } finally {
        node.child.kill('SIGTERM');
        await node.exitWithin(15_000);
      }
    }

    it('is not created with an external database unless PARLEY_DEMO=1: no demo page, no demo users', async () => {
      await withNode({}, async (base, node) => {
        assert.equal((await rawGet(`${base}/`)).status, 404);
        assert.deepEqual(await deployment.query(`SELECT id FROM companies WHERE slug = 'parley-demo'`), []);
        assert.ok(!node.lines.some((line) => line.includes('demo:')), 'no demo line in the start log');
      });
    });

    it('with PARLEY_DEMO=1 serves the demo page, whose chatbot answers from its guide, and logs a sign-in to /inbox that works', async () => {
      await withNode({ PARLEY_DEMO: '1' }, async (base, node) => {
        const page = await rawGet(`${base}/`);
        assert.equal(page.status, 200);
        const html = page.body.toString('utf8');
        const key = /data-key="(pk_[A-Za-z0-9]+)"/.exec(html)?.[1];
        assert.ok(key, 'the page embeds a chatbot key');
        assert.ok(html.includes('<script src="http://parley.test/widget.js"'), 'loads widget.js from APP_URL');
        const config = await fetch(`${base}/widget/${key}/config`).then((r) => r.json() as Promise<{ name: string }>);
        assert.equal(config.name, 'Demo Assistant');
        const answer = await fetch(`${base}/widget/${key}/stream`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ visitor_id: 'demo-visitor', message: 'How do I talk to a human?' }),
        }).then(async (r) => parseSse(await r.text()).events);
        assert.equal(answer.at(-1)?.event, 'done');
        assert.match(answer.filter((e) => e.event === 'delta').map((e) => e.data.delta).join(''), /Talk to a human/);

        const line = await node.waitForLog((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('demo:'), 5_000);
        const [, inbox, email, password] = /at (\S+\/inbox), signed in as (\S+) with password (\S+) /.exec(line.msg as string) ?? [];
        assert.equal(inbox, 'http://parley.test/inbox');
        assert.equal(email, 'agent@parley-demo.test');
        const signIn = await fetch(`${base}/api/agent/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email, password, device_name: 'Demo test' }),
        });
        assert.equal(signIn.status, 200, 'the printed password signs the agent in');
        assert.equal(JSON.parse(await readFile(join(dataDir, 'demo-passwords.json'), 'utf8'))[email!], password, 'kept in the data directory');
      });
    });
  });
});
