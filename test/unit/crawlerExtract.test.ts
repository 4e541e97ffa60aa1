import { strict as assert } from 'node:assert';
import { extractPage } from '../../src/domain/knowledge/crawler/extract';

const page = (body: string, head = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('crawler extraction', () => {
  it('turns headings into markdown lines and blocks into paragraphs', () => {
    const { title, text } = extractPage(
      page(`<h1>Tea  <em>guide</em></h1><div>Intro <b>bold</b><br>next</div><h3>Steps</h3>
        <ol><li>Boil<ul><li>not too hot</li></ul></li><li>Steep</li></ol><pre>a  b\n\n\nc</pre><!-- comment -->`),
      'https://tea.example/guide',
      'text/html',
    );
    assert.equal(title, 'Tea guide');
    assert.equal(text, '# Tea guide\n\nIntro bold next\n\n### Steps\n\nBoil\n\nnot too hot\n\nSteep\n\na  b\nc');
  });

  it('prefers <main>, else top-level <article>s, and drops boilerplate', () => {
    const withMain = extractPage(page('<p>outside</p><main><p>inside</p><aside>ad</aside><form>search</form></main>'), 'https://a.example/', 'text/html');
    assert.equal(withMain.text, 'inside');
    const articles = extractPage(page('<p>outside</p><article><p>one</p><article><p>nested</p></article></article><article><p>two</p></article>'), 'https://a.example/', 'text/html');
    assert.equal(articles.text, 'one\n\nnested\n\ntwo');
  });

  it('takes the title from <title>, else the first h1, else the URL', () => {
    assert.equal(extractPage(page('<h1>Heading</h1>', '<title> Shop </title>'), 'https://a.example/x', 'text/html').title, 'Shop');
    assert.equal(extractPage(page('<header><h1>Heading</h1></header>'), 'https://a.example/x', 'text/html').title, 'Heading');
    assert.equal(extractPage(page('<p>x</p>'), 'https://a.example/a%20b', 'text/html').title, '/a b');
    assert.equal(extractPage(page('<p>x</p>'), 'https://a.example/', 'text/html').title, 'a.example');
  });

  it('resolves links against <base href>, strips hashes and skips non-pages', () => {
    const { links } = extractPage(
      page(`<a href="guide#top">1</a><a href="/guide">2</a><a href="https://other.example/x">3</a><a href="mailto:a@b.c">4</a>
        <a href="javascript:void(0)">5</a><a href="file.PDF">6</a><a href="logo.png?v=1">7</a><a href="/list?page=2#x">8</a><a href="">9</a>
        <nav><a href="/from-nav">nav</a></nav>`, '<base href="https://a.example/docs/">'),
      'https://a.example/index.html',
      'text/html',
    );
    assert.deepEqual(links, [
      'https://a.example/docs/guide',
      'https://a.example/guide',
      'https://other.example/x',
      'https://a.example/list?page=2',
      'https://a.example/docs/',
      'https://a.example/from-nav',
    ]);
  });

  it('honours meta robots noindex, nofollow and none', () => {
    const body = '<p>Secret</p><nav><a href="/next">next</a></nav>';
    const noindex = extractPage(page(body, '<meta name="robots" content="noindex">'), 'https://a.example/', 'text/html');
    assert.deepEqual([noindex.text, noindex.links, noindex.noindex], ['', ['https://a.example/next'], true]);
    const nofollow = extractPage(page(body, '<meta name="ROBOTS" content="index, NoFollow">'), 'https://a.example/', 'text/html');
    assert.deepEqual([nofollow.text, nofollow.links], ['Secret', []]);
    const none = extractPage(page(body, '<meta name="robots" content="none">'), 'https://a.example/', 'text/html');
    assert.deepEqual([none.text, none.links], ['', []]);
  });

  it('keeps text/plain as it is', () => {
    const plain = extractPage('  <b>not html</b>\r\n\r\nsecond  ', 'https://a.example/notes.txt', 'text/plain');
    assert.deepEqual(plain, { title: '/notes.txt', text: '<b>not html</b>\n\nsecond', links: [], noindex: false, nofollow: false });
  });
});
