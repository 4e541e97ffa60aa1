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
}

/**
 * The visitor after a heartbeat at `now`. A URL different from the last one is a new page view;
 * the entry page is the first URL ever seen and the referrer the first one ever given (where the
 * visitor came from, not the site's own pages). The User-Agent is parsed only when it changes.
 */
export function applyBeat(previous: VisitorRecord, beat: Beat, now: number): { next: VisitorRecord; newPage: boolean } {
  const newPage = previous.page !== beat.url;
  const agent = beat.userAgent && beat.userAgent !== previous.userAgent ? parseUserAgent(beat.userAgent) : undefined;
  const next: VisitorRecord = {
    ...previous,
    chatbotId: beat.chatbotId,
    page: beat.url,
    // A new page without a title must not keep the previous page's.
    title: beat.title ?? (newPage ? null : previous.title),
    referrer: previous.referrer ?? (beat.referrer || null),
    entryPage: previous.entryPage ?? beat.url,
    country: beat.country ?? previous.country,
    locale: beat.locale ?? previous.locale,
    userAgent: beat.userAgent ?? previous.userAgent,
    device: agent ? agent.device : previous.device,
    browser: agent ? agent.browser : previous.browser,
    os: agent ? agent.os : previous.os,
    pageViews: previous.pageViews + (newPage ? 1 : 0),
    firstSeenAt: previous.firstSeenAt ?? now,
    lastSeenAt: now,
  };
  return { next, newPage };
}
