import robotsParser from 'robots-parser';
import { fetchPage } from './fetchPage';
import { FetchFailure, type HopOptions } from './httpGet';

/** Answers whether the crawl may fetch a URL of the origin whose robots.txt was loaded. */
export interface RobotsRules { isAllowed(url: string): boolean }

// Google's limit: rules past 500 KiB of robots.txt are ignored.
const MAX_ROBOTS_BYTES = 500 * 1024;

const allowEverything: RobotsRules = { isAllowed: () => true };
const allowNothing: RobotsRules = { isAllowed: () => false };

/** robots.txt groups match on the product token ("ParleyBot" of "ParleyBot/1.0 (+https://…)"). */
export function productToken(userAgent: string): string {
  return userAgent.trim().split(/[\s/]/)[0] || '*';
}

/**
 * Fetches `<origin>/robots.txt` once, through the same guarded fetch as pages. Missing or unreachable
 * (any failure, 5xx included) means everything is allowed; 401/403 means nothing is (Google's convention).
 */
export async function loadRobots(origin: string, options: HopOptions): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  let text: string;
  try {
    ({ text } = await fetchPage(robotsUrl, { ...options, maxBytes: MAX_ROBOTS_BYTES, anyContentType: true }));
  } catch (err) {
    if (!(err instanceof FetchFailure)) throw err;
    return err.status === 401 || err.status === 403 ? allowNothing : allowEverything;
  }
  const robots = robotsParser(robotsUrl, text);
  const agent = productToken(options.userAgent);
  // robots-parser answers undefined for URLs of another origin; the crawl never asks about those.
  return { isAllowed: (url) => robots.isAllowed(url, agent) !== false };
}

/** The reason recorded for a URL robots.txt keeps us from. */
export function robotsReason(url: string): string {
  const { pathname, search } = new URL(url);
  return `robots.txt disallows ${pathname}${search}`;
}
