import { load, type CheerioAPI } from 'cheerio';
import { capDepth } from './capDepth';
import { findLinks } from './links';
import { collapse, readableText } from './readableText';

export interface ExtractedPage {
  title: string;
  /** Empty when the page asks not to be indexed. */
  text: string;
  /** Absolute http(s) links, hash stripped, any origin (the crawl filters); empty under nofollow. */
  links: string[];
  noindex: boolean;
  nofollow: boolean;
}

// Chrome and boilerplate: none of it answers a visitor's question, and nav/footer repeat on every page.
const DROP = ['script', 'style', 'noscript', 'template', 'svg', 'nav', 'footer', 'header', 'aside', 'form', 'iframe'];

/** Turns a fetched page into readable text (markdown-style headings) plus the links to crawl next. */
export function extractPage(body: string, pageUrl: string, mediaType: string): ExtractedPage {
  if (mediaType === 'text/plain') {
    return { title: titleFromUrl(pageUrl), text: body.replace(/\r\n?/g, '\n').trim(), links: [], noindex: false, nofollow: false };
  }
  const $ = load(body);
  // Before any selector: their cost grows with the tree's depth.
  capDepth($, new Set(DROP));
  const { noindex, nofollow } = metaRobots($);
  const title = collapse($('title').first().text()) || collapse($('h1').first().text()) || titleFromUrl(pageUrl);
  // Links come from the whole page, before nav/footer go: navigation is how the rest of the site is found.
  const links = nofollow ? [] : findLinks($, pageUrl);
  let text = '';
  if (!noindex) {
    $(DROP.join(', ')).remove();
    text = readableText(contentRoot($).toArray());
  }
  return { title, text, links, noindex, nofollow };
}

function contentRoot($: CheerioAPI) {
  const main = $('main').first();
  if (main.length) return main;
  const articles = $('article').filter((_, el) => $(el).parents('article').length === 0);
  return articles.length ? articles : $('body');
}

/** Every `<meta name="robots">` counts; "none" means both noindex and nofollow. */
function metaRobots($: CheerioAPI): { noindex: boolean; nofollow: boolean } {
  const directives = $('meta[name][content]')
    .toArray()
    .filter((el) => ($(el).attr('name') ?? '').trim().toLowerCase() === 'robots')
    .flatMap((el) => ($(el).attr('content') ?? '').toLowerCase().split(','))
    .map((directive) => directive.trim());
  const none = directives.includes('none');
  return { noindex: none || directives.includes('noindex'), nofollow: none || directives.includes('nofollow') };
}

function titleFromUrl(pageUrl: string): string {
  const url = new URL(pageUrl);
  if (url.pathname === '/') return url.host;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}
