import { fetchPage } from './fetchPage';
import { FetchFailure, type HopOptions } from './httpGet';
import { normalizeUrl } from './links';
import { ReadFailure, type PageReader } from './pageReader';

export interface CrawledPage { url: string; title: string; text: string }

export type Visit =
  | {
      ok: true;
      /** Normalised final URL, after redirects. */
      finalUrl: string;
      /** Undefined when the page yields no text; `skipReason` then says why. */
      page?: CrawledPage;
      skipReason?: string;
      /** Normalised same-origin links to queue. */
      links: string[];
    }
  | { ok: false; reason: string; permanent: boolean };

export interface VisitContext { origin: string; hop: HopOptions; maxBytesPerPage: number; reader: PageReader }

/** Fetches and extracts one page of the crawl's origin; only the caller's abort escapes as an exception. */
export async function visitPage(url: string, context: VisitContext): Promise<Visit> {
  let fetched;
  let extracted;
  try {
    fetched = await fetchPage(url, { ...context.hop, maxBytes: context.maxBytesPerPage, origin: context.origin });
    extracted = await context.reader.read(fetched.text, fetched.url, fetched.mediaType);
  } catch (err) {
    if (err instanceof FetchFailure) return { ok: false, reason: err.reason, permanent: err.permanent };
    // The same page would overrun or crash again: retrying later cannot help.
    if (err instanceof ReadFailure) return { ok: false, reason: err.reason, permanent: true };
    throw err;
  }
  const links = extracted.links.filter((link) => new URL(link).origin === context.origin);
  const finalUrl = normalizeUrl(new URL(fetched.url));
  if (extracted.noindex) return { ok: true, finalUrl, links, skipReason: 'the page asks not to be indexed (noindex)' };
  if (!extracted.text) return { ok: true, finalUrl, links, skipReason: 'no readable text' };
  return { ok: true, finalUrl, links, page: { url: finalUrl, title: extracted.title, text: extracted.text } };
}
