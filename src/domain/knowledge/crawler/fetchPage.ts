import { TextDecoder } from 'node:util';
import { FetchFailure, getOnce, type HopOptions } from './httpGet';

export interface FetchPageOptions extends HopOptions {
  maxBytes: number;
  /** When set, every hop must stay on this origin (pages); robots.txt may redirect anywhere the policy allows. */
  origin?: string;
  /** robots.txt is read whatever content type the server labels it with. */
  anyContentType?: boolean;
}

export interface FetchedPage {
  /** The final URL after redirects. */
  url: string;
  status: number;
  mediaType: string;
  text: string;
  truncated: boolean;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const READABLE = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);

/** Refuses what the crawler must never request, whatever the address: other schemes, credentials, other sites. */
export function checkUrl(url: URL, origin?: string): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchFailure(`unsupported scheme ${url.protocol}`, true);
  if (url.username || url.password) throw new FetchFailure('URLs with credentials are not crawled', true);
  if (origin !== undefined && url.origin !== origin) throw new FetchFailure(`redirects to another site (${url.href})`, true);
}

/**
 * GETs one URL, following up to 5 redirects itself so each hop is re-vetted (scheme, origin and,
 * at connect time, the address policy). Throws FetchFailure for anything that yields no text.
 */
export async function fetchPage(start: string | URL, options: FetchPageOptions): Promise<FetchedPage> {
  let url = new URL(start);
  for (let hop = 0; ; hop++) {
    checkUrl(url, options.origin);
    const { res, readBody } = await getOnce(url, options);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location) {
      res.destroy();
      if (hop >= MAX_REDIRECTS) throw new FetchFailure(`too many redirects (more than ${MAX_REDIRECTS})`, true);
      url = parseLocation(location, url);
      continue;
    }
    if (status < 200 || status > 299) {
      res.destroy();
      throw new FetchFailure(`HTTP ${status}`, isPermanentStatus(status), status);
    }
    const contentType = res.headers['content-type'] ?? '';
    const mediaType = contentType.split(';')[0].trim().toLowerCase();
    if (!options.anyContentType && !READABLE.has(mediaType)) {
      res.destroy();
      throw new FetchFailure(`not an HTML or text page (${mediaType || 'no content type'})`, true, status);
    }
    const { body, truncated } = await readBody(options.maxBytes);
    const text = decode(body, contentType, mediaType !== 'text/plain');
    return { url: url.href, status, mediaType: mediaType === 'application/xhtml+xml' ? 'text/html' : mediaType, text, truncated };
  }
}

function parseLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new FetchFailure(`redirects to an invalid URL (${location})`, true);
  }
}

/** 4xx will not fix itself, except "slow down" and "took too long", which are worth retrying like 5xx. */
function isPermanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Decodes with the header's charset, else (HTML) a <meta charset> in the first KiB, else UTF-8. */
function decode(body: Buffer, contentType: string, isHtml: boolean): string {
  const declared = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1]
    ?? (isHtml ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1] : undefined);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(declared ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8'); // a label Node does not know: UTF-8 is the web's default
  }
  return decoder.decode(body);
}
