import type { Redis } from 'ioredis';
import { localSettingsEpoch, settingsEpochKey } from '../../db/settingsEpoch';

/** A safety net for writes that bypass the models (a hand-run SQL update): no copy is older than this. */
const MAX_AGE_MS = 30_000;
/** Past this many keys a cache starts over: made-up keys must not grow memory. */
const MAX_ENTRIES = 10_000;

/** What a cache reads the epoch with: the process's Redis (none in single-node mode) and its deployment's key prefix. */
export interface EpochSource {
  redis?: Redis;
  config: { redisPrefix: string };
}

interface Entry<V> {
  value: Promise<V>;
  epoch: string;
  local: number;
  at: number;
}

/**
 * Chatbot and workspace settings remembered per process, so a stream start costs no query for them.
 * A copy is used only while the cluster's settings epoch (src/db/settingsEpoch.ts, one Redis read
 * per use) and this process's own count are what they were before it was loaded: any committed
 * write of a chatbot or workspace row on any node makes every copy stale for the next request.
 * Without Redis (single-node mode), or when Redis does not answer, nothing is remembered: every
 * use loads, as before. Failed loads are not kept; concurrent loads of one key share one query.
 */
export class SettingsCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(private readonly load: (key: K) => Promise<V>) {}

  async get(ctx: EpochSource, key: K, epochRead?: string): Promise<V> {
    return (await this.read(ctx, key, epochRead)).value;
  }

  /**
   * `get`, with the cluster's settings epoch it was checked against (undefined when none was read), so
   * a later step of the same request may check its own copies against it instead of reading it again
   * (`epochRead`): what it read then is what a request starting then would have read.
   */
  async read(ctx: EpochSource, key: K, epochRead?: string): Promise<{ value: V; epoch: string | undefined }> {
    const { redis } = ctx;
    if (!redis) return { value: await this.load(key), epoch: undefined };
    // Read before loading: a write racing the load leaves this copy with the older epoch, so it is not trusted again.
    const local = localSettingsEpoch();
    const epoch =
      epochRead ??
      (await redis.get(settingsEpochKey(ctx.config.redisPrefix)).then(
        (value) => value ?? '0',
        () => undefined,
      ));
    if (epoch === undefined) return { value: await this.load(key), epoch };
    return { value: await this.remembered(key, epoch, local), epoch };
  }

  private remembered(key: K, epoch: string, local: number): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.epoch === epoch && hit.local === local && local === localSettingsEpoch() && now - hit.at < MAX_AGE_MS) return hit.value;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const entry: Entry<V> = { value: this.load(key), epoch, local, at: now };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }
}
