import { strict as assert } from 'node:assert';
import { performance } from 'node:perf_hooks';
import { crawlSite, CrawlError, type CrawlOptions } from '../../src/domain/knowledge/crawler';
import { get } from '../support/http';
import { html, startSite, type TestSite } from '../support/site';

const options: CrawlOptions = {
  allowPrivate: true,
  maxPages: 10,
  maxBytesPerPage: 2 * 1024 * 1024,
  timeoutMs: 5000,
  userAgent: 'ParleyBot/1.0',
  concurrency: 1,
};

// parse5 builds nested blocks in time quadratic in the depth: seconds of work for one page.
const deepDivs = (depth: number) => `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;

/** Polls /healthz back to back until `work` settles; returns the slowest answer in ms and how many there were. */
async function healthDuring(work: Promise<unknown>): Promise<{ slowest: number; answers: number }> {
  let done = false;
  const settled = work.finally(() => void (done = true)).catch(() => undefined);
  let slowest = 0;
  let answers = 0;
  while (!done) {
    const started = performance.now();
    assert.equal((await get('/healthz')).status, 200);
    slowest = Math.max(slowest, performance.now() - started);
    answers++;
  }
  await settled;
  return { slowest, answers };
}

describe('crawler off the event loop', function () {
  this.timeout(120_000);
  const sites: TestSite[] = [];
  afterEach(async () => {
    await Promise.all(sites.splice(0).map((s) => s.close()));
  });

  it('keeps the web server answering while it reads a hostile page', async () => {
    const site = await startSite({
      '/': html(`<pre>${' '.repeat(1024 * 1024)}x</pre><p>end</p>${deepDivs(15_000)}`),
    });
    sites.push(site);
    const crawl = crawlSite(site.url('/'), { ...options, readBudgetMs: 100_000 });
    const { slowest, answers } = await healthDuring(crawl);
    const { pages } = await crawl;
    assert.deepEqual(pages.map((p) => p.text), ['x\n\nend\n\ndeep']);
    assert.ok(answers >= 3, `only ${answers} health checks ran during the crawl`);
    assert.ok(slowest < 500, `/healthz took ${Math.round(slowest)} ms while the page was read`);
  });

  it('gives up on a page that takes longer than the read budget and reads the next with a fresh worker', async () => {
    const site = await startSite({
      '/': html('<p>home</p><nav><a href="/slow">slow</a> <a href="/after">after</a></nav>'),
      '/slow': html(deepDivs(60_000)),
      '/after': html('<p>after</p>'),
    });
    sites.push(site);
    const started = performance.now();
    const crawl = crawlSite(site.url('/'), { ...options, readBudgetMs: 300 });
    const { slowest } = await healthDuring(crawl);
    const result = await crawl;
    assert.ok(performance.now() - started < 20_000, 'the slow page was cut short');
    assert.deepEqual(result.pages.map((p) => p.text), ['home', 'after']);
    assert.deepEqual(result.skipped, [{ url: site.url('/slow'), reason: 'the page took too long to read' }]);
    assert.ok(slowest < 500, `/healthz took ${Math.round(slowest)} ms`);

    await assert.rejects(crawlSite(site.url('/slow'), { ...options, readBudgetMs: 300 }), (err: unknown) => {
      assert.ok(err instanceof CrawlError);
      assert.equal(err.message, 'the page took too long to read');
      assert.equal(err.permanent, true);
      return true;
    });
  });
});
