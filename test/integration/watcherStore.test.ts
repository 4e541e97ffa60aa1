import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { LocalWatcherStore, RedisWatcherStore, type WatcherEntry, type WatcherStore } from '../../src/realtime/watcherStore';
import { TEST_REDIS_PREFIX } from '../support/env';
import { server } from '../support/hooks';

const sorted = (entries: WatcherEntry[]) => [...entries].sort((a, b) => a.socketId.localeCompare(b.socketId));

/** The same contract for both stores: single-node mode keeps watchers in memory, a cluster in Redis. */
const inRedis = () => new RedisWatcherStore(server().ctx.redis!, `${TEST_REDIS_PREFIX}store-${randomUUID()}:`);
const stores: Array<[string, () => WatcherStore]> = [
  ['in memory (single-node mode)', () => new LocalWatcherStore()],
  ['in Redis (cluster mode)', inRedis],
];

const a1: WatcherEntry = { node: 'n1:a', socketId: 's1', userId: 1 };
const a2: WatcherEntry = { node: 'n2:b', socketId: 's2', userId: 1 };
const b: WatcherEntry = { node: 'n1:a', socketId: 's3', userId: 2 };

for (const [name, create] of stores) {
  describe(`watcher store ${name}`, () => {
    it('add and remove answer the entries right after the change; a second remove removes nothing', async () => {
      const store = create();
      const conversation = randomUUID();
      assert.deepEqual(await store.add(conversation, a1), [a1]);
      assert.deepEqual(sorted(await store.add(conversation, a2)), [a1, a2]);
      assert.deepEqual(sorted(await store.add(conversation, a2)), [a1, a2]);
      assert.deepEqual(await store.remove(conversation, a1), { removed: true, entries: [a2] });
      assert.deepEqual(await store.remove(conversation, a1), { removed: false, entries: [a2] });
      assert.deepEqual(await store.entries(randomUUID()), []);
    });

    it('watchedAmong answers, in order, whether each conversation has an entry, also once its last one left', async () => {
      const store = create();
      const [watched, left, never] = [randomUUID(), randomUUID(), randomUUID()];
      await store.add(watched, a1);
      await store.add(left, b);
      await store.remove(left, b);
      assert.deepEqual(await store.watchedAmong([never, watched, left, watched]), [false, true, false, true]);
      assert.deepEqual(await store.watchedAmong([]), []);
    });
  });
}

describe('watcher store in Redis: a departed node', () => {
  it("dropNode removes a node's entries everywhere and names the conversations only to the first caller", async () => {
    const store = inRedis();
    const [one, two] = [randomUUID(), randomUUID()];
    await store.add(one, a1);
    await store.add(one, a2);
    await store.add(two, b);
    assert.deepEqual((await store.dropNode('n1:a')).sort(), [one, two].sort());
    assert.deepEqual(await store.dropNode('n1:a'), []);
    assert.deepEqual(await store.entries(one), [a2]);
    assert.deepEqual(await store.entries(two), []);
  });
});
