import { strict as assert } from 'node:assert';
import { chunkDocument } from '../../src/domain/knowledge/chunking';

describe('chunkDocument', () => {
  it('opens a passage per heading and titles it with the heading path', () => {
    const chunks = chunkDocument('Guide', '# Setup\nInstall it.\n\n## Linux\nUse the package.\n\n# Usage\nRun it.');
    assert.deepEqual(chunks, [
      { title: 'Guide › Setup', content: 'Install it.' },
      { title: 'Guide › Setup › Linux', content: 'Use the package.' },
      { title: 'Guide › Usage', content: 'Run it.' },
    ]);
  });

  it('packs paragraphs up to the size cap and never exceeds it', () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30).trim()}.`);
    const chunks = chunkDocument('Doc', paragraphs.join('\n\n'), { maxChars: 500, overlap: 100 });
    assert.ok(chunks.length > 5);
    for (const chunk of chunks) assert.ok(chunk.content.length <= 500, `${chunk.content.length} chars`);
    // Every paragraph survives whole in some passage.
    for (const paragraph of paragraphs) assert.ok(chunks.some((c) => c.content.includes(paragraph)), paragraph.slice(0, 20));
  });

  it('repeats the end of a passage at the start of the next within a section', () => {
    const text = Array.from({ length: 8 }, (_, i) => `Sentence number ${i} talks about topic ${i}.`).join('\n\n');
    const [first, second] = chunkDocument('Doc', text, { maxChars: 150, overlap: 40 });
    assert.ok(first && second);
    const carried = second.content.split('\n\n')[0]!;
    assert.ok(first.content.endsWith(carried), `"${carried}" should end the first passage`);
  });

  it('splits an oversized paragraph at sentences, then words', () => {
    const long = 'This sentence is short. '.repeat(100);
    const chunks = chunkDocument('Doc', long, { maxChars: 200, overlap: 0 });
    for (const chunk of chunks) {
      assert.ok(chunk.content.length <= 200);
      assert.match(chunk.content, /^This sentence is short\./);
    }
    const words = chunkDocument('Doc', 'word '.repeat(500), { maxChars: 120, overlap: 0 });
    for (const chunk of words) assert.ok(chunk.content.length <= 120 && !chunk.content.includes('wo rd'));
  });

  it('drops NUL and control characters and ignores blank documents', () => {
    assert.deepEqual(chunkDocument('Doc', 'a\u0000b\u0007c'), [{ title: 'Doc', content: 'a b c' }]);
    assert.deepEqual(chunkDocument('Doc', ' \n\n \t'), []);
  });
});
