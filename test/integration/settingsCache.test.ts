import { strict as assert } from 'node:assert';
import { settingsEpochKey, settingsWritten } from '../../src/db/settingsEpoch';
import { SettingsCache } from '../../src/domain/chatbots/settingsCache';
import { server } from '../support/hooks';

/** A loader that counts its calls and can be held open, to write while a load is under way. */
function countingLoader() {
  let release: (() => void) | undefined;
  const loader = {
    calls: 0,
    hold: false,
    load: async (key: string) => {
      loader.calls++;
      const call = loader.calls;
      if (loader.hold) await new Promise<void>((resolve) => (release = resolve));
      return `${key}#${call}`;
    },
    release: () => release?.(),
  };
  return loader;
}

describe('remembered settings (SettingsCache) against the settings epoch in Redis', () => {
  const ctx = () => server().ctx;

  it('loads once while nothing is written, and again after a write in this process', async () => {
    const loader = countingLoader();
    const cache = new SettingsCache(loader.load);
    assert.equal(await cache.get(ctx(), 'a'), 'a#1');
    assert.equal(await cache.get(ctx(), 'a'), 'a#1');
    assert.equal(loader.calls, 1);
    await settingsWritten();
    assert.equal(await cache.get(ctx(), 'a'), 'a#2');
  });

  it("sees another process's write: the epoch raised in Redis makes the next use load", async () => {
    const loader = countingLoader();
    const cache = new SettingsCache(loader.load);
    await cache.get(ctx(), 'b');
    await ctx().redis!.incr(settingsEpochKey(ctx().config.redisPrefix));
    assert.equal(await cache.get(ctx(), 'b'), 'b#2');
    assert.equal(await cache.get(ctx(), 'b'), 'b#2');
  });

  it('does not trust a copy whose load raced a write: the next use loads again', async () => {
    const loader = countingLoader();
    const cache = new SettingsCache(loader.load);
    loader.hold = true;
    const racing = cache.get(ctx(), 'c');
    // The write commits while the load is under way (the load may have read the row before it).
    while (loader.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    await settingsWritten();
    loader.release();
    assert.equal(await racing, 'c#1');
    loader.hold = false;
    assert.equal(await cache.get(ctx(), 'c'), 'c#2');
  });

  it('shares one load between concurrent uses and keeps no failed load', async () => {
    let calls = 0;
    const cache = new SettingsCache(async (key: string) => {
      calls++;
      if (calls === 1) throw new Error('database down');
      return key;
    });
    const [first, second] = await Promise.allSettled([cache.get(ctx(), 'd'), cache.get(ctx(), 'd')]);
    assert.equal(first.status, 'rejected');
    assert.equal(second.status, 'rejected');
    assert.equal(calls, 1);
    assert.equal(await cache.get(ctx(), 'd'), 'd');
    assert.equal(calls, 2);
  });
});
