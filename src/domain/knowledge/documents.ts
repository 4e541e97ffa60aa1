import type { Config } from '../../../config/env';
import type { KnowledgeSource } from '../../models';
import { chunkDocument, type Chunk } from './chunking';
import { CrawlError, crawlSite } from './crawler';
import { IndexingFailed } from './errors';

/** What one source (or one crawled page of it) contributes to the index. */
export interface IndexedDocument {
  /** Set for crawled pages: they are stored as child sources of the URL source. */
  page?: { title: string; url: string; text: string };
  url: string | null;
  chunks: Chunk[];
}

export const CRAWLER_USER_AGENT = 'ParleyBot/1.0';

/** Reads a source into passages: its own text, its Q&A pair, or every page of its website. */
export async function documentsOf(source: KnowledgeSource, config: Pick<Config, 'crawl'>): Promise<IndexedDocument[]> {
  switch (source.type) {
    case 'text':
      return [{ url: source.sourceUrl, chunks: chunkDocument(source.title, source.content ?? '') }];
    case 'qa':
      // The question is every passage's title (weighted highest in search); the answer is the text quoted.
      return [{ url: source.sourceUrl, chunks: chunkDocument(source.question ?? source.title, source.answer ?? '') }];
    case 'url':
      return crawledDocuments(source.sourceUrl ?? '', config.crawl);
    case 'page':
      throw new IndexingFailed('Crawled pages are indexed with their website source.', true);
  }
}

async function crawledDocuments(url: string, crawl: Config['crawl']): Promise<IndexedDocument[]> {
  try {
    const { pages } = await crawlSite(url, {
      allowPrivate: crawl.allowPrivate,
      maxPages: crawl.maxPages,
      maxBytesPerPage: crawl.maxBytesPerPage,
      timeoutMs: 15_000,
      userAgent: CRAWLER_USER_AGENT,
    });
    return pages
      .filter((page) => page.url.length <= 2048)
      .map((page) => ({ page, url: page.url, chunks: chunkDocument(page.title, page.text) }));
  } catch (error) {
    if (error instanceof CrawlError) throw new IndexingFailed(error.message, error.permanent);
    throw error;
  }
}
