import type { CheerioAPI } from 'cheerio';

// Files the crawler could only skip after downloading them: cheaper to never queue them.
const NOT_HTML = new Set([
  'pdf', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff',
  'zip', 'gz', 'tgz', 'bz2', 'xz', 'rar', '7z', 'tar', 'css', 'js', 'mjs', 'map', 'json', 'xml', 'rss', 'atom',
  'mp3', 'mp4', 'm4a', 'm4v', 'wav', 'ogg', 'webm', 'avi', 'mov', 'mkv', 'woff', 'woff2', 'ttf', 'otf', 'eot',
  'exe', 'dmg', 'msi', 'apk', 'iso', 'bin', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'csv', 'epub',
]);

/** A URL without its fragment, or undefined when it is not something to crawl. */
export function crawlableUrl(href: string, base: string | URL): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const extension = /\.([a-z0-9]{1,5})$/i.exec(url.pathname)?.[1]?.toLowerCase();
  if (extension && NOT_HTML.has(extension)) return undefined;
  return normalizeUrl(url);
}

/** The key of the visited set: WHATWG URL already lowercases the host and drops default ports. */
export function normalizeUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  if (copy.search === '') copy.search = ''; // drops a bare trailing "?"
  return copy.href;
}

/** The page's `a[href]` links, resolved against `<base href>` when the page declares one. */
export function findLinks($: CheerioAPI, pageUrl: string): string[] {
  const base = baseUrl($, pageUrl);
  const links = new Set<string>();
  for (const el of $('a[href]').toArray()) {
    const link = crawlableUrl($(el).attr('href') ?? '', base);
    if (link) links.add(link);
  }
  return [...links];
}

function baseUrl($: CheerioAPI, pageUrl: string): string {
  const href = $('base[href]').first().attr('href');
  if (!href) return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}
