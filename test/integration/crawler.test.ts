import { strict as assert } from 'node:assert';
import { gzipSync } from 'node:zlib';
import { crawlSite, CrawlError, type CrawlOptions } from '../../src/domain/knowledge/crawler';
import { fetchPage } from '../../src/domain/knowledge/crawler/fetchPage';
import { FetchFailure } from '../../src/domain/knowledge/crawler/httpGet';
import { closedPortUrl, html, startSite, type SitePage, type TestSite } from '../support/site';

const options: CrawlOptions = {
  allowPrivate: true,
  maxPages: 50,
  maxBytesPerPage: 2 * 1024 * 1024,
  timeoutMs: 2000,
  userAgent: 'ParleyBot/1.0 (+https://parley.example/bot)',
};

const NAV = '<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/docs/guide">Guide</a></nav>';

describe('crawler', () => {
  const sites: TestSite[] = [];
  const site = async (pages: Record<string, SitePage | (() => SitePage)>, host?: string) => {
    const started = await startSite(pages, host);
    sites.push(started);
    return started;
  };
  const pageRequests = (s: TestSite) => s.requests.filter((path) => path !== '/robots.txt');
  afterEach(async () => {
    await Promise.all(sites.splice(0).map((s) => s.close()));
  });

  async function rejectsWith(promise: Promise<unknown>, permanent: boolean, message: RegExp): Promise<void> {
    await assert.rejects(promise, (err: unknown) => {
      assert.ok(err instanceof CrawlError, `expected CrawlError, got ${String(err)}`);
      assert.equal(err.permanent, permanent, err.message);
      assert.match(err.message, message);
      return true;
    });
  }

  it('crawls a site breadth-first, keeping headings and dropping nav and scripts', async () => {
    const s = await site({
      '/': html(`<header>Site header</header>${NAV}<main><h1>Welcome</h1><p>We make   tea.</p><script>var secret = 1;</script>
        <ul><li>Green</li><li>Black</li></ul><h2>Prices</h2><table><tr><th>Tea</th><th>Price</th></tr><tr><td>Green</td><td>3</td></tr></table></main>
        <footer>Copyright footer</footer>`, '<title>Tea shop</title><style>body{color:red}</style>'),
      '/about': html(`${NAV}<article><h2>About</h2><p>Founded in 1901.</p></article><a href="/about#team">team</a>`),
      '/docs/guide': html(`${NAV}<h1>Guide</h1><p>Steep for three minutes.</p><a href="/empty">empty</a>`),
      '/empty': html(`${NAV}<script>only();</script>`),
    });
    const result = await crawlSite(s.url('/'), options);
    const byUrl = new Map(result.pages.map((p) => [p.url, p]));
    assert.deepEqual([...byUrl.keys()].sort(), [s.url('/'), s.url('/about'), s.url('/docs/guide')]);
    const home = byUrl.get(s.url('/'));
    assert.equal(home?.title, 'Tea shop');
    assert.equal(home?.text, '# Welcome\n\nWe make tea.\n\nGreen\n\nBlack\n\n## Prices\n\nTea | Price\n\nGreen | 3');
    assert.equal(byUrl.get(s.url('/about'))?.text, '## About\n\nFounded in 1901.');
    assert.equal(byUrl.get(s.url('/docs/guide'))?.title, 'Guide');
    for (const page of result.pages) assert.doesNotMatch(page.text, /About us|secret|footer|header|color/);
    assert.deepEqual(result.skipped, [{ url: s.url('/empty'), reason: 'no readable text' }]);
    assert.equal(s.requests.filter((path) => path === '/about').length, 1, 'the #team link is the same page');
    assert.equal(s.requests[0], '/robots.txt');
  });

  it('obeys robots.txt: a disallowed page is never requested', async () => {
    const s = await site({
      '/robots.txt': { headers: { 'Content-Type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' },
      '/': html('<p>Home</p><nav><a href="/private">secret</a> <a href="/public">public</a></nav>'),
      '/public': html('<p>Public</p>'),
      '/private': html('<p>Private</p>'),
    });
    const result = await crawlSite(s.url('/'), options);
    assert.deepEqual(result.pages.map((p) => p.text).sort(), ['Home', 'Public']);
    assert.ok(!s.requests.includes('/private'));
    assert.deepEqual(result.skipped, [{ url: s.url('/private'), reason: 'robots.txt disallows /private' }]);
  });

  it('refuses a start page robots.txt disallows, and treats 401/403 robots.txt as disallowing all', async () => {
    const ours = await site({ '/robots.txt': { body: 'User-agent: ParleyBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n' }, '/': html('<p>x</p>') });
    await rejectsWith(crawlSite(ours.url('/'), options), true, /^robots\.txt disallows \/$/);
    const locked = await site({ '/robots.txt': { status: 403, body: 'no' }, '/': html('<p>x</p>') });
    await rejectsWith(crawlSite(locked.url('/'), options), true, /robots\.txt disallows/);
    assert.deepEqual(pageRequests(ours).concat(pageRequests(locked)), []);
    const broken = await site({ '/robots.txt': { status: 500 }, '/': html('<p>x</p>') });
    assert.equal((await crawlSite(broken.url('/'), options)).pages.length, 1, 'a 5xx robots.txt allows everything');
  });

  it('ignores links and redirects to another origin', async () => {
    const other = await site({ '/': html('<p>Elsewhere</p>'), '/x': html('<p>X</p>') });
    const s = await site({
      '/': html(`<p>Home</p><nav><a href="${other.url('/')}">other</a><a href="/go">go</a></nav>`),
      '/go': { status: 302, headers: { Location: other.url('/x') } },
    });
    const result = await crawlSite(s.url('/'), options);
    assert.deepEqual(result.pages.map((p) => p.text), ['Home']);
    assert.deepEqual(result.skipped, [{ url: s.url('/go'), reason: `redirects to another site (${other.url('/x')})` }]);
    assert.deepEqual(other.requests, []);
    const away = await site({ '/': { status: 301, headers: { Location: other.url('/') } } });
    await rejectsWith(crawlSite(away.url('/'), options), true, /redirects to another site/);
    assert.deepEqual(other.requests, []);
  });

  it('follows same-origin redirects and reports the final URL', async () => {
    const s = await site({ '/': { status: 301, headers: { Location: '/home' } }, '/home': html('<p>Home</p>') });
    const result = await crawlSite(s.url('/'), options);
    assert.deepEqual(result.pages, [{ url: s.url('/home'), title: '/home', text: 'Home' }]);
  });

  it('stops at maxPages without requesting more pages than needed', async () => {
    const links = Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">${i}</a>`).join(' ');
    const pages: Record<string, SitePage> = { '/': html(`<p>Home</p>${links}`) };
    for (let i = 0; i < 10; i++) pages[`/p${i}`] = html(`<p>Page ${i}</p>${links}`);
    const s = await site(pages);
    const result = await crawlSite(s.url('/'), { ...options, maxPages: 4 });
    assert.equal(result.pages.length, 4);
    assert.equal(pageRequests(s).length, 4);
  });

  it('truncates a page past maxBytesPerPage instead of failing', async () => {
    const paragraph = `<p>${'tea '.repeat(250)}</p>`;
    const s = await site({ '/': html(paragraph.repeat(3 * 1024)) });
    const result = await crawlSite(s.url('/'), { ...options, maxBytesPerPage: 1024 * 1024 });
    assert.equal(result.pages.length, 1);
    const text = result.pages[0].text;
    assert.ok(text.length > 900_000 && text.length < 1024 * 1024, `text length ${text.length}`);
  });

  it('reads gzip bodies, declared charsets and text/plain pages; skips other content types', async () => {
    const s = await site({
      '/': html('<nav><a href="/zip">z</a><a href="/latin">l</a><a href="/notes">n</a><a href="/data">d</a></nav>'),
      '/zip': { headers: { 'Content-Encoding': 'gzip' }, body: gzipSync('<p>Compressed tea</p>') },
      '/latin': { headers: { 'Content-Type': 'text/html; charset=iso-8859-1' }, body: Buffer.from('<p>Caf\xe9</p>', 'latin1') },
      '/notes': { headers: { 'Content-Type': 'text/plain' }, body: 'Line one\r\nLine two\n' },
      '/data': { headers: { 'Content-Type': 'application/octet-stream' }, body: 'xx' },
    });
    const result = await crawlSite(s.url('/'), options);
    const texts = Object.fromEntries(result.pages.map((p) => [new URL(p.url).pathname, p.text]));
    assert.deepEqual(texts, { '/zip': 'Compressed tea', '/latin': 'Café', '/notes': 'Line one\nLine two' });
    assert.deepEqual(result.skipped, [
      { url: s.url('/'), reason: 'no readable text' },
      { url: s.url('/data'), reason: 'not an HTML or text page (application/octet-stream)' },
    ]);
  });

  it('fails a 404 start page permanently and an unreachable one temporarily', async () => {
    const s = await site({});
    await rejectsWith(crawlSite(s.url('/missing'), options), true, /^HTTP 404$/);
    await rejectsWith(crawlSite(await closedPortUrl(), options), false, /connection refused/);
    const slow = await site({ '/': { hang: true } });
    await rejectsWith(crawlSite(slow.url('/'), { ...options, timeoutMs: 200 }), false, /^timed out after 200 ms$/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(crawlSite(slow.url('/'), { ...options, signal: controller.signal }), { name: 'AbortError' });
    await rejectsWith(crawlSite('ftp://example.com/', options), true, /unsupported scheme ftp:/);
    await rejectsWith(crawlSite('http://user:pw@example.com/', options), true, /credentials/);
    await rejectsWith(crawlSite('not a url', options), true, /invalid URL/);
  });

  describe('address policy', () => {
    const strict: CrawlOptions = { ...options, allowPrivate: false };

    it('refuses a loopback IP literal before connecting', async () => {
      const s = await site({ '/': html('<p>Home</p>') });
      await rejectsWith(crawlSite(s.url('/'), strict), true, /^refused: 127\.0\.0\.1 is a loopback address$/);
      assert.deepEqual(s.requests, []);
      await rejectsWith(crawlSite('http://[::ffff:127.0.0.1]:1/', strict), true, /loopback/);
      await rejectsWith(crawlSite('http://169.254.169.254/latest/meta-data/', strict), true, /cloud metadata address/);
    });

    it('refuses a host name that resolves to loopback', async () => {
      const s = await site({ '/': html('<p>Home</p>') });
      await rejectsWith(crawlSite(`http://localhost:${new URL(s.origin).port}/`, strict), true, /^refused: (127\.0\.0\.1|::1) is a loopback address$/);
      assert.deepEqual(s.requests, []);
      const allowed = await crawlSite(`http://localhost:${new URL(s.origin).port}/`, options);
      assert.deepEqual(allowed.pages.map((p) => p.text), ['Home'], 'allowPrivate connects to what the lookup vetted');
    });

    it('re-checks the address on every redirect hop', async () => {
      const forbidden = await site({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/secret': html('<p>Secret</p>') }, '127.0.0.2');
      const allowed = await site({
        '/robots.txt': { status: 302, headers: { Location: forbidden.url('/robots.txt') } },
        '/': html('<p>Home</p>'),
        '/leak': { status: 302, headers: { Location: forbidden.url('/secret') } },
      });
      const onlyFirstLoopback: CrawlOptions = { ...strict, isAllowedAddress: (ip) => ip === '127.0.0.1' };
      // robots.txt may redirect off-origin, so only the address policy stands between it and 127.0.0.2.
      const result = await crawlSite(allowed.url('/'), onlyFirstLoopback);
      assert.deepEqual(result.pages.map((p) => p.text), ['Home'], 'an unreachable robots.txt allows everything');
      await assert.rejects(
        fetchPage(allowed.url('/leak'), { policy: (ip) => ip === '127.0.0.1', userAgent: 'test', timeoutMs: 2000, maxBytes: 1000 }),
        (err: unknown) => err instanceof FetchFailure && err.permanent && err.reason === 'refused: 127.0.0.2 is not an allowed address',
      );
      assert.deepEqual(allowed.requests, ['/robots.txt', '/', '/leak']);
      assert.deepEqual(forbidden.requests, []);
    });
  });
});
