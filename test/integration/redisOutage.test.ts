import { strict as assert } from 'node:assert';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../src/redis';
import { REDIS_URL } from '../support/env';
import { eventually } from '../support/eventually';
import { TcpProxy } from '../support/tcpProxy';

/** How long a command waited before it settled, and how. */
async function settle(command: Promise<unknown>): Promise<{ ms: number; error?: string }> {
  const started = Date.now();
  try {
    await command;
    return { ms: Date.now() - started };
  } catch (error) {
    return { ms: Date.now() - started, error: (error as Error).message };
  }
}

/**
 * A command during a Redis outage fails at once instead of waiting out ioredis's retries (every fourth
 * failed reconnect, up to 8 s), and a blip shorter than the first reconnect attempt loses no command.
 * Redis is "down" for this connection only: it reaches the real one through a proxy that is cut.
 */
describe('Redis commands while Redis is down', function () {
  this.timeout(30_000);
  let proxy: TcpProxy;
  let redis: Redis;

  before(async () => {
    const target = new URL(REDIS_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    const url = new URL(REDIS_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    redis = await connectRedis(url.toString(), pino({ level: 'silent' }), 'outage-test');
  });
  after(async () => {
    redis?.disconnect();
    await proxy?.close();
  });

  it('a command sent during a blip goes out on the reconnect', async () => {
    // Sent as the connection closes, before the first reconnect attempt (200 ms later) could fail, and
    // the proxy restored at once: ioredis queues it and sends it on the reconnect.
    const closed = new Promise<{ during: Promise<unknown> }>((resolve) => redis.once('close', () => resolve({ during: redis.ping() })));
    proxy.cut();
    const { during } = await closed;
    proxy.restore();
    assert.equal((await settle(during)).error, undefined);
  });

  it('fails commands at once while down, and serves them again once Redis is back', async () => {
    proxy.cut();
    // Past the first failed reconnect attempts: without fail-fast, a command now would wait for the next
    // fourth attempt (seconds away).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const down = await settle(redis.get('parley:outage-test'));
    assert.ok(down.error, 'the command failed');
    assert.ok(down.ms < 500, `it failed after ${down.ms} ms, not at once`);

    proxy.restore();
    const back = await eventually(() => settle(redis.set('parley:outage-test', '1', 'EX', 5)), (s) => s.error === undefined, 10_000);
    assert.equal(back.error, undefined);
    assert.equal(await redis.get('parley:outage-test'), '1');
  });
});
