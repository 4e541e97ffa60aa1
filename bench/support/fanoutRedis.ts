import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { REDIS_URL } from './resources';

/** CPU seconds Redis has used (INFO cpu): it carries every cross-node event, so its share is part of the cost. */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

/**
 * Raw sharded pub/sub round trip (SPUBLISH -> SSUBSCRIBE, what the Socket.IO adapter uses) with a
 * payload the size of a `message.created` envelope: the floor under any cross-node event.
 */
export async function redisProbe(prefix: string): Promise<{ probe: () => Promise<number>; close: () => void }> {
  const pub = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const sub = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const channel = `${prefix}raw-probe`;
  const waiting = new Map<string, (at: number) => void>();
  sub.on('smessage', (_channel: string, text: string) => waiting.get(text.slice(0, 12))?.(performance.now()));
  await sub.ssubscribe(channel);
  let n = 0;
  const padding = 'x'.repeat(260);
  return {
    probe: () =>
      new Promise((resolveProbe) => {
        const id = String(++n).padStart(12, '0');
        const sentAt = performance.now();
        waiting.set(id, (at) => {
          waiting.delete(id);
          resolveProbe(at - sentAt);
        });
        void pub.spublish(channel, `${id}${padding}`);
      }),
    close: () => {
      pub.disconnect();
      sub.disconnect();
    },
  };
}
