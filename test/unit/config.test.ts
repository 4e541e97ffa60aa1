import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/env';

const KEY = 'k'.repeat(32);
const external = { DATABASE_URL: 'postgres://u@db:5432/parley', APP_KEY: KEY };

describe('config', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(external);
    assert.equal(config.port, 3000);
    assert.equal(config.appUrl, 'http://localhost:3000');
    assert.equal(config.singleNode, true);
    assert.equal(config.embeddedDatabase, false);
    assert.deepEqual(config.crawl, { allowPrivate: false, maxPages: 50, maxBytesPerPage: 2 * 1024 * 1024 });
    assert.deepEqual(config.outbound, { allowPrivate: false });
    assert.equal(config.providerTimeoutMs, 60_000);
    assert.equal(config.vapid, undefined);
    assert.equal(config.metricsToken, undefined);
    assert.equal(config.workerPort, undefined);
    assert.match(config.nodeId, /-\d+$/);
    assert.ok(config.dataDir.endsWith('.parley'));
    assert.ok(Object.isFrozen(config));
  });

  it('creates the demo workspace in embedded mode, and with an external database only with PARLEY_DEMO=1', () => {
    assert.equal(loadConfig(external).demo, false);
    assert.equal(loadConfig({ ...external, PARLEY_DEMO: '1' }).demo, true);
    assert.equal(loadConfig({ APP_KEY: KEY, DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-config-')) }).demo, true);
    assert.throws(() => loadConfig({ ...external, PARLEY_DEMO: 'yes' }), /PARLEY_DEMO/);
  });

  it('derives APP_URL from PORT and strips a trailing slash', () => {
    assert.equal(loadConfig({ ...external, PORT: '4000' }).appUrl, 'http://localhost:4000');
    assert.equal(loadConfig({ ...external, APP_URL: 'https://chat.example.com/' }).appUrl, 'https://chat.example.com');
  });

  it('reads provider settings per slug and switches to cluster mode with REDIS_URL', () => {
    const config = loadConfig({
      ...external,
      REDIS_URL: 'redis://127.0.0.1:6379',
      PROVIDER_OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1',
      PROVIDER_CLAUDE_API_KEY: 'sk-ant-test',
      CRAWL_ALLOW_PRIVATE: '1',
      OUTBOUND_ALLOW_PRIVATE: '1',
    });
    assert.equal(config.singleNode, false);
    assert.equal(config.providers.openai.baseUrl, 'http://127.0.0.1:9999/v1');
    assert.equal(config.providers.claude.apiKey, 'sk-ant-test');
    assert.equal(config.providers.gemini.apiKey, undefined);
    assert.equal(config.crawl.allowPrivate, true);
    assert.equal(config.outbound.allowPrivate, true);
  });

  it('reads METRICS_TOKEN and WORKER_PORT (0 picks a free port)', () => {
    const config = loadConfig({ ...external, METRICS_TOKEN: 'scrape-token-0123456789', WORKER_PORT: '0' });
    assert.equal(config.metricsToken, 'scrape-token-0123456789');
    assert.equal(config.workerPort, 0);
    assert.equal(loadConfig({ ...external, WORKER_PORT: '3001' }).workerPort, 3001);
  });

  it('treats empty values as unset', () => {
    assert.equal(loadConfig({ ...external, REDIS_URL: '', PORT: ' ' }).singleNode, true);
  });

  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['APP_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x/y'],
    ['REDIS_URL', 'http://x'],
    ['APP_KEY', 'short'],
    ['CRAWL_ALLOW_PRIVATE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['PROVIDER_GEMINI_BASE_URL', 'ftp://x'],
    ['METRICS_TOKEN', 'too-short'],
    ['WORKER_PORT', 'abc'],
    ['WORKER_PORT', '70000'],
  ] as const) {
    it(`rejects a bad ${name} with a message naming it`, () => {
      assert.throws(() => loadConfig({ ...external, [name]: value }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, new RegExp(name));
        return true;
      });
    });
  }

  it('requires APP_KEY with an external database', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: external.DATABASE_URL }), /APP_KEY/);
  });

  it('requires both VAPID keys together', () => {
    assert.throws(() => loadConfig({ ...external, VAPID_PUBLIC_KEY: 'pub' }), /VAPID_PRIVATE_KEY/);
    const config = loadConfig({ ...external, VAPID_PUBLIC_KEY: 'pub', VAPID_PRIVATE_KEY: 'priv' });
    assert.deepEqual(config.vapid, { publicKey: 'pub', privateKey: 'priv', subject: 'mailto:admin@localhost' });
  });

  it('accepts a base64: APP_KEY of 32 bytes and refuses a shorter one', () => {
    const key = Buffer.alloc(32, 7);
    assert.deepEqual(loadConfig({ ...external, APP_KEY: `base64:${key.toString('base64')}` }).appKey, key);
    assert.throws(() => loadConfig({ ...external, APP_KEY: `base64:${Buffer.alloc(31).toString('base64')}xxxxxxxx` }), /APP_KEY/);
  });

  it('generates APP_KEY once into DATA_DIR in embedded mode, private to the owner', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'parley-config-')), 'data');
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    assert.equal(first.embeddedDatabase, true);
    assert.ok(first.appKey.length >= 32);
    assert.deepEqual(second.appKey, first.appKey);
    const file = join(dataDir, 'app.key');
    assert.match(readFileSync(file, 'utf8'), /^base64:/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});
