import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The settings epoch: a number every node reads before trusting what it remembers of a chatbot's
 * or a workspace's settings (src/domain/chatbots/settingsCache.ts), and that every committed write
 * of a chatbot or workspace row raises (the model hooks in src/models/index.ts). It lives in Redis,
 * so a write on one node (or by the CLI) is seen by the next request on any other node; this
 * process also keeps its own count, so its own writes apply at once whatever Redis does.
 */
const KEY = 'settings-epoch';

interface Announcer {
  key: string;
  logger: Logger;
}

/** The Redis connections of this process's contexts, each with its deployment's key. */
const announcers = new Map<Redis, Announcer>();
let localEpoch = 0;

export const settingsEpochKey = (redisPrefix: string): string => `${redisPrefix}${KEY}`;

/** A context's Redis starts hearing of this process's settings writes (until `forgetSettingsEpoch`). */
export function shareSettingsEpoch(redis: Redis, redisPrefix: string, logger: Logger): void {
  announcers.set(redis, { key: settingsEpochKey(redisPrefix), logger });
}

export function forgetSettingsEpoch(redis: Redis): void {
  announcers.delete(redis);
}

/** This process's own count of settings writes. */
export const localSettingsEpoch = (): number => localEpoch;

/**
 * A chatbot or workspace row was written (and committed): every node's remembered settings are
 * stale from now on. Awaited by the write, so its answer goes out only once other nodes can tell.
 * A Redis failure is logged, not thrown (the row is written); other nodes then catch up within
 * the cache's age limit.
 */
export async function settingsWritten(): Promise<void> {
  localEpoch++;
  await Promise.all(
    [...announcers].map(([redis, { key, logger }]) =>
      redis.incr(key).then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, 'a settings change could not be announced to other nodes; they see it once their cached copy ages out'),
      ),
    ),
  );
}
