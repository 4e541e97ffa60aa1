import http from 'node:http';
import https from 'node:https';
import { outboundPolicy, type AddressPolicy } from '../../../net/outboundAddress';
import { checkUrl } from './fetchPage';
import { FetchFailure, type Agents, type HopOptions } from './httpGet';
import { normalizeUrl } from './links';
import { PageReader } from './pageReader';
import { loadRobots, robotsReason, type RobotsRules } from './robots';
import { visitPage, type CrawledPage, type Visit, type VisitContext } from './visitPage';

export type { CrawledPage } from './visitPage';

export interface CrawlOptions {
  /** CRAWL_ALLOW_PRIVATE: lets the crawler reach loopback, private and link-local addresses. */
  allowPrivate: boolean;
  maxPages: number;
  maxBytesPerPage: number;
  timeoutMs: number;
  userAgent: string;
  concurrency?: number;
  signal?: AbortSignal;
  /** Longest one page may take to read (parse and extract) on the crawl's worker thread; default 10 s. */
  readBudgetMs?: number;
  /**
   * Tests only: replaces the address policy (and `allowPrivate`) so a test can allow one loopback
   * address and refuse another. Production code never sets it.
   */
  isAllowedAddress?: (ip: string) => boolean;
}

export interface CrawlResult { pages: CrawledPage[]; skipped: { url: string; reason: string }[] }

/** The start page could not be crawled; `permanent` says whether retrying later could help. */
export class CrawlError extends Error {
  override name = 'CrawlError';
  constructor(message: string, readonly permanent: boolean) {
    super(message);
  }
}

// Failing pages do not count toward maxPages, so this bounds the work a site of broken links can cause.
const ATTEMPTS_PER_PAGE = 3;

/**
 * Breadth-first crawl of the start URL's origin. Throws CrawlError only when the start page fails;
 * later failures land in `skipped`. Rejects with the signal's reason when aborted.
 */
export async function crawlSite(startUrl: string, options: CrawlOptions): Promise<CrawlResult> {
  options.signal?.throwIfAborted();
  const start = parseStart(startUrl);
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const policy: AddressPolicy = options.isAllowedAddress ?? outboundPolicy(options.allowPrivate);
  // Per-crawl agents: a pooled socket is only ever reused under the policy that vetted it.
  const agents: Agents = { http: new http.Agent({ keepAlive: true, maxSockets: concurrency }), https: new https.Agent({ keepAlive: true, maxSockets: concurrency }) };
  const hop: HopOptions = { policy, userAgent: options.userAgent, timeoutMs: options.timeoutMs, agents, signal: options.signal };
  // Pages are read off this thread: in single-node mode this thread also serves the web app.
  const reader = new PageReader(options.readBudgetMs);
  try {
    const robots = await loadRobots(start.origin, hop);
    if (!robots.isAllowed(start.href)) throw new CrawlError(robotsReason(start.href), true);
    const context: VisitContext = { origin: start.origin, hop, maxBytesPerPage: options.maxBytesPerPage, reader };
    const first = await visitPage(start.href, context);
    if (!first.ok) throw new CrawlError(first.reason, first.permanent);
    return await crawlFrom(start.href, first, robots, context, options, concurrency);
  } finally {
    agents.http.destroy();
    agents.https.destroy();
    await reader.close();
  }
}

function parseStart(startUrl: string): URL {
  let url: URL;
  try {
    url = new URL(startUrl.trim());
  } catch {
    throw new CrawlError(`invalid URL: ${startUrl}`, true);
  }
  try {
    checkUrl(url);
  } catch (err) {
    if (err instanceof FetchFailure) throw new CrawlError(err.reason, true);
    throw err;
  }
  return url;
}

async function crawlFrom(
  startUrl: string,
  first: Visit,
  robots: RobotsRules,
  context: VisitContext,
  options: CrawlOptions,
  concurrency: number,
): Promise<CrawlResult> {
  const result: CrawlResult = { pages: [], skipped: [] };
  const seen = new Set<string>([normalizeUrl(new URL(startUrl))]);
  const fetched = new Set<string>();
  const queue: string[] = [];
  const record = (url: string, visit: Visit): void => {
    if (!visit.ok) return void result.skipped.push({ url, reason: visit.reason });
    if (fetched.has(visit.finalUrl)) return void result.skipped.push({ url, reason: `same page as ${visit.finalUrl}` });
    fetched.add(visit.finalUrl);
    seen.add(visit.finalUrl);
    if (visit.page) result.pages.push(visit.page);
    else if (visit.skipReason) result.skipped.push({ url, reason: visit.skipReason });
    for (const link of visit.links) {
      if (seen.has(link)) continue;
      seen.add(link);
      queue.push(link);
    }
  };
  record(startUrl, first);

  let attempts = 1;
  let failure: { error: unknown } | undefined;
  const active = new Set<Promise<void>>();
  const canStart = () =>
    !failure && !options.signal?.aborted && queue.length > 0 && active.size < concurrency
    && result.pages.length + active.size < options.maxPages && attempts < options.maxPages * ATTEMPTS_PER_PAGE;
  for (;;) {
    while (canStart()) {
      const url = queue.shift() as string;
      if (!robots.isAllowed(url)) {
        result.skipped.push({ url, reason: robotsReason(url) });
        continue;
      }
      attempts++;
      // Errors are parked rather than thrown so in-flight requests settle before the crawl rejects.
      const task: Promise<void> = visitPage(url, context)
        .then((visit) => record(url, visit), (error: unknown) => void (failure ??= { error }))
        .finally(() => active.delete(task));
      active.add(task);
    }
    if (active.size === 0) break;
    await Promise.race(active);
  }
  options.signal?.throwIfAborted();
  if (failure) throw failure.error;
  return result;
}
