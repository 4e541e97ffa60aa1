/** The slice of domhandler's node shape the walk needs (domhandler is cheerio's dependency, not ours). */
export interface DomNode {
  nodeType: number;
  data?: string;
  name?: string;
  children?: DomNode[];
}

/**
 * Most characters one paragraph, heading, table row or <pre> contributes. Real prose paragraphs are a
 * few thousand characters at most; past this a page is padding (or an attack on the index size), and
 * the rest of the element adds nothing a visitor's question could be answered from.
 */
export const MAX_ELEMENT_CHARS = 20_000;

// Elements that start a new paragraph; everything else flows inline into the current one.
const BLOCKS = new Set([
  'address', 'article', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'hr', 'li', 'main', 'ol', 'p', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'ul',
]);

const HEADING = /^h([1-6])$/;

/** Collects paragraphs; inline text accumulates until a block boundary flushes it. */
class Paragraphs {
  readonly list: string[] = [];
  private buffer = '';

  add(text: string): void {
    this.buffer += text;
  }

  flush(): void {
    const text = clip(collapse(this.buffer));
    this.buffer = '';
    if (text) this.list.push(text);
  }

  push(paragraph: string): void {
    this.flush();
    if (paragraph) this.list.push(clip(paragraph));
  }
}

/**
 * Readable text of the given roots: headings become markdown heading lines, paragraphs, list items and
 * table rows become their own paragraphs, separated by blank lines; whitespace is collapsed except in <pre>.
 * Linear in the size of the tree: every pattern and loop here passes over each character a bounded number
 * of times. The walk recurses once per level, so callers cap the tree's depth first (`capDepth`).
 */
export function readableText(roots: DomNode[]): string {
  const out = new Paragraphs();
  for (const root of roots) walk(root, out);
  out.flush();
  return out.list.join('\n\n');
}

function walk(node: DomNode, out: Paragraphs): void {
  if (node.nodeType === 3) return out.add(node.data ?? '');
  if (node.nodeType !== 1 || !node.name || !node.children) return; // comments, processing instructions
  const name = node.name.toLowerCase();
  const heading = HEADING.exec(name);
  if (heading) {
    const text = inlineText(node);
    return out.push(text && `${'#'.repeat(Number(heading[1]))} ${text}`);
  }
  if (name === 'br') return out.add(' ');
  if (name === 'tr') {
    const cells = node.children.filter((cell) => cell.name === 'td' || cell.name === 'th').map(inlineText);
    return out.push(cells.filter(Boolean).join(' | '));
  }
  if (name === 'pre') return out.push(preformatted(node));
  const block = BLOCKS.has(name);
  if (block) out.flush();
  for (const child of node.children) walk(child, out);
  if (block) out.flush();
}

/** All text of a node on one line (block children inside a heading or cell just become spaces). */
function inlineText(node: DomNode): string {
  const inner = new Paragraphs();
  for (const child of node.children ?? []) walk(child, inner);
  inner.flush();
  return clip(inner.list.join(' '));
}

// Code and ASCII layouts lose their meaning when collapsed: keep line breaks, drop blank-line runs.
function preformatted(node: DomNode): string {
  const lines = flatText(node, '\n').split('\n').map(trimLineEnd).filter((line) => line !== '');
  return clip(lines.join('\n').trim());
}

/**
 * Every text node under `node` in document order, `<br>` and block boundaries as `lineBreak`, skipping
 * elements named in `skip`. An explicit stack instead of recursion: the depth of the tree is the page author's choice.
 */
export function flatText(node: DomNode, lineBreak: string, skip: ReadonlySet<string> = new Set()): string {
  const parts: string[] = [];
  const stack: DomNode[] = [node];
  while (stack.length) {
    const current = stack.pop()!;
    if (current.nodeType === 3) {
      parts.push(current.data ?? '');
      continue;
    }
    const name = current.name?.toLowerCase() ?? '';
    if (skip.has(name)) continue;
    if (name === 'br' || BLOCKS.has(name)) parts.push(lineBreak);
    const children = current.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return parts.join('');
}

/**
 * The line without trailing spaces and tabs, by a backwards scan: the regex `/[ \t]+$/gm` this replaces
 * retried the whole whitespace run from every position in it, quadratic in a run with no line end.
 */
function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const code = line.charCodeAt(end - 1);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}

/** At most MAX_ELEMENT_CHARS characters, never splitting a surrogate pair. */
function clip(text: string): string {
  if (text.length <= MAX_ELEMENT_CHARS) return text;
  const end = isHighSurrogate(text.charCodeAt(MAX_ELEMENT_CHARS - 1)) ? MAX_ELEMENT_CHARS - 1 : MAX_ELEMENT_CHARS;
  return text.slice(0, end).trimEnd();
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
