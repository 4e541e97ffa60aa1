import type { VisitorRecord } from '../../domain/visitors/records';
import { parseUserAgent } from '../../domain/visitors/userAgent';

/** What one heartbeat says about the visitor. */
export interface Beat {
  chatbotId: number;
  url: string;
  title?: string;
  referrer?: string;
  userAgent?: string;
  country?: string;
  locale?: string;
  timezone?: string;
  /** The chatbot's `behavior_tracking`; off, the beat records presence only. */
  trackBehavior: boolean;
}

/**
 * The visitor after a heartbeat at `now`. A URL different from the last one is a new page view;
 * the entry page is the first URL ever seen and the referrer the first one ever given (where the
 * visitor came from, not the site's own pages). The User-Agent is parsed only when it changes.
 * With the chatbot's `behavior_tracking` off the visitor is online (and listed, with their device),
 * but no page, title, referrer or page view is recorded, and the current page is forgotten.
 */
export function applyBeat(previous: VisitorRecord, beat: Beat, now: number): { next: VisitorRecord; newPage: boolean } {
  const agent = beat.userAgent && beat.userAgent !== previous.userAgent ? parseUserAgent(beat.userAgent) : undefined;
  const present: VisitorRecord = {
    ...previous,
    chatbotId: beat.chatbotId,
    country: beat.country ?? previous.country,
    locale: beat.locale ?? previous.locale,
    timezone: beat.timezone ?? previous.timezone,
    userAgent: beat.userAgent ?? previous.userAgent,
    device: agent ? agent.device : previous.device,
    browser: agent ? agent.browser : previous.browser,
    os: agent ? agent.os : previous.os,
    firstSeenAt: previous.firstSeenAt ?? now,
    lastSeenAt: now,
  };
  if (!beat.trackBehavior) return { next: { ...present, page: null, title: null }, newPage: false };
  const newPage = previous.page !== beat.url;
  const next: VisitorRecord = {
    ...present,
    page: beat.url,
    // A new page without a title must not keep the previous page's.
    title: beat.title ?? (newPage ? null : previous.title),
    referrer: previous.referrer ?? (beat.referrer || null),
    entryPage: previous.entryPage ?? beat.url,
    pageViews: previous.pageViews + (newPage ? 1 : 0),
  };
  return { next, newPage };
}
