export { crawlSite, CrawlError, type CrawlOptions, type CrawlResult, type CrawledPage } from './crawlSite';
