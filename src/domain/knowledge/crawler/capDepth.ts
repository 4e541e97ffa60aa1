import type { CheerioAPI } from 'cheerio';
import { flatText } from './readableText';

/**
 * Deepest element kept as structure. Real pages nest a few dozen levels; an attacker can nest 400,000
 * in a 2 MB page. cheerio's selectors walk the tree with an array as long as its depth, shifted per
 * node (quadratic), and the readable-text walk recurses once per level (a stack overflow), so below this
 * depth each subtree is replaced by its text. Chromium's parser does much the same at depth 512.
 */
export const MAX_DEPTH = 256;

/** Flattens every element at MAX_DEPTH into one text node; elements named in `dropped` contribute no text. */
export function capDepth($: CheerioAPI, dropped: ReadonlySet<string>): void {
  const root = $.root().get(0);
  if (!root) return;
  const stack = [{ nodes: root.children, depth: 1 }];
  while (stack.length) {
    const { nodes, depth } = stack.pop()!;
    for (const node of nodes) {
      if (!('children' in node) || node.children.length === 0) continue;
      if (depth >= MAX_DEPTH) $(node).text(flatText(node, ' ', dropped));
      else stack.push({ nodes: node.children, depth: depth + 1 });
    }
  }
}
