import { strict as assert } from 'node:assert';
import { chunkDocument } from '../../src/domain/knowledge/chunking';
import { asksForHuman } from '../../src/domain/conversations/escalation';
import { extractPage, type ExtractedPage } from '../../src/domain/knowledge/crawler/extract';
import { MAX_ELEMENT_CHARS } from '../../src/domain/knowledge/crawler/readableText';

// The quadratic <pre> trim this guards against took hours on 2 MB. Measured in CPU time, not wall
// time: the extraction is synchronous, so the process's CPU while it runs is its cost, whatever else
// the machine is doing (a loaded CI machine stretches the wall clock several times over).
const BOUND_MS = 2000;

const page = (body: string, head = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

function timed<T>(label: string, run: () => T): T {
  const started = process.cpuUsage();
  const result = run();
  const spent = process.cpuUsage(started);
  const elapsed = (spent.user + spent.system) / 1000;
  assert.ok(elapsed < BOUND_MS, `${label} took ${Math.round(elapsed)} ms of CPU`);
  return result;
}

const read = (label: string, html: string): ExtractedPage => timed(label, () => extractPage(html, 'https://a.example/', 'text/html'));

describe('crawler extraction of hostile pages', function () {
  this.timeout(60_000);

  it('reads a 2 MB <pre> of spaces followed by one character in linear time', () => {
    assert.equal(read('2 MB pre', page(`<pre>${' '.repeat(2 * 1024 * 1024)}x</pre>`)).text, 'x');
    const lines = read('pre of trailing-space lines', page(`<pre>${`a${' \t'.repeat(50_000)}\n`.repeat(20)}</pre>`)).text;
    assert.equal(lines, 'a\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na');
  });

  it('collapses 100 KB whitespace runs in text, headings and cells', () => {
    const run = ' \t\n'.repeat(35_000);
    const { text, title } = read('whitespace runs', page(`<h2>a${run}b</h2><p>c${run}d</p><table><tr><td>e${run}f</td><td>g</td></tr></table>`, `<title>t${run}u</title>`));
    assert.equal(title, 't u');
    assert.equal(text, '## a b\n\nc d\n\ne f | g');
  });

  it('survives 50,000 levels of nesting, keeping the innermost text', () => {
    const deep = (tag: string, inner: string) => `${`<${tag}>`.repeat(50_000)}${inner}${`</${tag}>`.repeat(50_000)}`;
    assert.equal(read('deep spans', page(`<p>before</p>${deep('span', 'deep text')}<p>after</p>`)).text, 'before\n\ndeep text\n\nafter');
    assert.equal(read('deep in a heading', page(`<h1>${deep('b', 'title')}</h1>`)).text, '# title');
    assert.equal(read('deep in a pre', page(`<pre>${deep('i', 'code')}</pre>`)).text, 'code');
    const hidden = read('deep script', page(deep('em', '<script>secret()</script>shown'))).text;
    assert.equal(hidden, 'shown', 'scripts below the depth cap stay out of the text');
    // Deep block nesting costs parse5 itself quadratic time; 10,000 levels is within the bound, more hits the crawl's read budget.
    assert.equal(read('deep divs', page(`${'<div>'.repeat(10_000)}block${'</div>'.repeat(10_000)}`)).text, 'block');
  });

  it('handles a 1 MB attribute value and thousands of attributes', () => {
    const huge = 'a'.repeat(1024 * 1024);
    const { text, links } = read('1 MB attribute', page(`<a href="/${huge}">link</a><p title="${huge}" data-x='${huge}'>text</p>`));
    assert.equal(text, 'link\n\ntext');
    assert.deepEqual(links.map((link) => link.length), [`https://a.example/${huge}`.length]);
    const attributes = Array.from({ length: 5_000 }, (_, i) => `data-a${i}="${i}"`).join(' ');
    assert.equal(read('many attributes', page(`<p ${attributes}>many</p>`)).text, 'many');
  });

  it('collects a list of 20,000 links', () => {
    const anchors = Array.from({ length: 20_000 }, (_, i) => `<a href="/p${i}">${i}</a>`).join(' ');
    const { links } = read('link list', page(`<nav>${anchors}</nav>`));
    assert.equal(links.length, 20_000);
    assert.equal(links[19_999], 'https://a.example/p19999');
  });

  it('caps what one paragraph, row, heading or <pre> contributes', () => {
    const long = 'word '.repeat(10_000);
    const { text } = read('long elements', page(`<h1>${long}</h1><p>${long}</p><table><tr><td>${long}</td><td>${long}</td></tr></table><pre>${long}</pre><p>short</p>`));
    const parts = text.split('\n\n');
    assert.equal(parts.length, 5);
    for (const part of parts.slice(0, 4)) assert.ok(part.length <= MAX_ELEMENT_CHARS, `a part of ${part.length} characters`);
    assert.ok(parts[1]!.startsWith('word word') && parts[1]!.length > MAX_ELEMENT_CHARS - 10);
    assert.equal(parts[4], 'short');
    const emoji = read('cap inside a surrogate pair', page(`<p>${'😀'.repeat(MAX_ELEMENT_CHARS)}</p>`)).text;
    assert.ok(!/[\uD800-\uDBFF]$/.test(emoji), 'no lone high surrogate at the cut');
  });
});

describe('patterns applied to outside text', function () {
  this.timeout(60_000);

  it('reads a markdown heading with a long run of spaces in linear time', () => {
    const chunks = timed('heading', () => chunkDocument('Doc', `# a${' '.repeat(100_000)}b\n\ntext`));
    assert.equal(chunks[0]!.title, `Doc › a${' '.repeat(100_000)}b`.slice(0, 255));
    assert.deepEqual(chunkDocument('Doc', '## Title ##\n\ntext')[0], { title: 'Doc › Title', content: 'text' });
  });

  it('checks a 4,000-character visitor message for a handoff request in linear time', () => {
    assert.equal(timed('escalation', () => asksForHuman(`human${' '.repeat(3_990)}x`)), false);
    assert.equal(asksForHuman('  human please!  '), true);
    assert.equal(asksForHuman('how do I talk to a human?'), false);
  });
});
