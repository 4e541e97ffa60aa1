import type { Config } from '../../../config/env';

/**
 * The widget heartbeat interval the server asks for (`poll_seconds`, default 15).
 * `VISITOR_POLL_SECONDS` overrides it (tests shorten it); read it through `pollSecondsOf`.
 */
export const POLL_SECONDS = 15;

/** The interval in force: the override from the environment, else the default. */
export const pollSecondsOf = (config: Pick<Config, 'visitorPollSeconds'>): number => config.visitorPollSeconds ?? POLL_SECONDS;

/** A visitor with no heartbeat for two intervals has left the site: one lost beat is not a departure. */
export const departureMs = (pollSeconds: number): number => 2 * pollSeconds * 1000;

/** Whether a visitor last seen at `lastSeen` still counts as on the site at `now`. */
export function isOnline(lastSeen: Date | number | null | undefined, now: number, pollSeconds: number): boolean {
  if (lastSeen === null || lastSeen === undefined) return false;
  const seen = typeof lastSeen === 'number' ? lastSeen : lastSeen.getTime();
  return now - seen < departureMs(pollSeconds);
}
