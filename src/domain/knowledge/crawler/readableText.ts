/** The slice of domhandler's node shape the walk needs (domhandler is cheerio's dependency, not ours). */
export interface DomNode {
  nodeType: number;
  data?: string;
  name?: string;
  children?: DomNode[];
}

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
    const text = collapse(this.buffer);
    this.buffer = '';
    if (text) this.list.push(text);
  }

  push(paragraph: string): void {
    this.flush();
    if (paragraph) this.list.push(paragraph);
  }
}

/**
 * Readable text of the given roots: headings become markdown heading lines, paragraphs, list items and
 * table rows become their own paragraphs, separated by blank lines; whitespace is collapsed except in <pre>.
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
    const cells = node.children.filter((cell) => cell.name === 'td' || cell.name === 'th').map(inlineText).filter(Boolean);
    return out.push(cells.join(' | '));
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
  return inner.list.join(' ');
}

// Code and ASCII layouts lose their meaning when collapsed: keep line breaks, drop blank-line runs.
function preformatted(node: DomNode): string {
  const raw: string[] = [];
  const collect = (n: DomNode): void => {
    if (n.nodeType === 3) raw.push(n.data ?? '');
    else if (n.name?.toLowerCase() === 'br') raw.push('\n');
    else for (const child of n.children ?? []) collect(child);
  };
  collect(node);
  return raw.join('').replace(/[ \t]+$/gm, '').replace(/\n{2,}/g, '\n').trim();
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
