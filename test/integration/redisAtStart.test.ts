import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { Deployment } from '../support/cluster/deployment';
import { REDIS_URL } from '../support/env';
import { eventually } from '../support/eventually';
import { ROOT, Running, SERVER, stopProcess } from '../support/processes';
import { TcpProxy } from '../support/tcpProxy';

const WORKER = resolve(ROOT, 'dist/workers/index.js');
const WAITING = 'waiting for Redis to answer';

/**
 * A process started while Redis is down waits for it, saying so in its log (a bounded number of
 * lines), and starts normally once Redis answers: no exit for a supervisor to notice and retry.
 * Redis is "down" for these processes only: they reach the real one through a proxy that is cut.
 */
describe('a process started while Redis is down', function () {
  this.timeout(90_000);
  let deployment: Deployment;
  let proxy: TcpProxy;
  const processes: Running[] = [];

  before(async () => {
    deployment = await Deployment.create();
    const redis = new URL(REDIS_URL);
    proxy = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
  });
  after(async () => {
    await Promise.all(processes.map((p) => stopProcess(p)));
    await proxy?.close();
    await deployment?.destroy();
  });

  it('web and worker wait with logged retries, then start and serve once Redis is back', async () => {
    proxy.cut();
    const redisUrl = new URL(REDIS_URL);
    redisUrl.host = `127.0.0.1:${proxy.port}`;
    const env = deployment.env({ REDIS_URL: redisUrl.toString() });
    const web = new Running(SERVER, [], { env: { ...env, NODE_ID: 'late-web' } });
    const worker = new Running(WORKER, [], { env: { ...env, NODE_ID: 'late-worker' } });
    processes.push(web, worker);
    const since = Date.now();

    for (const process of [web, worker]) {
      const waiting = await process.waitForLog((entry) => entry.msg === WAITING, 20_000);
      assert.equal(waiting.level, 40, 'a warning');
      assert.equal(typeof waiting.cause, 'string');
    }
    // Absence cannot be awaited: give them the time an exit on the first failed attempt would take, and more.
    assert.equal(await web.exitWithin(1_500), undefined, `the web process exited while Redis was down: ${web.stderr}`);
    assert.equal(await worker.exitWithin(0), undefined, `the worker exited while Redis was down: ${worker.stderr}`);
    assert.equal(web.logs((entry) => entry.msg === 'listening').length, 0);
    assert.equal(worker.logs((entry) => entry.msg === 'worker ready').length, 0);

    proxy.restore();
    const listening = await web.waitForLog((entry) => entry.msg === 'listening', 30_000);
    await worker.waitForLog((entry) => entry.msg === 'worker ready', 30_000);
    const waitedMs = Date.now() - since;
    const answered = web.logs((entry) => entry.msg === 'redis answered');
    assert.ok(answered.length >= 1 && Number(answered[0]!.attempts) >= 1, 'it says when Redis answered, after how many attempts');

    const url = `http://127.0.0.1:${String(listening.port)}`;
    const ready = await eventually(() => fetch(`${url}/readyz`).then((r) => r.status), (status) => status === 200, 15_000);
    assert.equal(ready, 200);
    const missing = await fetch(`${url}/widget/pk_missing0000000000000000000/config`);
    assert.equal(missing.status, 404, 'a route that uses Postgres and the Redis rate limiter answers');

    // One line per connection at most every 5 s while it waited, not one per reconnect attempt (every 200 ms to 2 s).
    for (const process of [web, worker]) {
      const lines = process.logs((entry) => entry.msg === WAITING).length;
      assert.ok(lines <= 1 + Math.ceil(waitedMs / 5_000), `${lines} waiting lines in ${waitedMs} ms`);
    }
  });
});
