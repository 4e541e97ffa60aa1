import type { RequestHandler } from 'express';

/**
 * Text PostgreSQL cannot store: NUL (refused by text and jsonb alike) and UTF-16 halves without their
 * pair (refused by jsonb). A client can send both as JSON escapes (`\u0000`, `\ud800`).
 */
const UNSTORABLE = '\\u0000|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_UNSTORABLE = new RegExp(UNSTORABLE);
const EVERY_UNSTORABLE = new RegExp(UNSTORABLE, 'g');

/** NUL is dropped; a lone surrogate becomes U+FFFD, as a UTF-8 encoder would write it. */
const storable = (text: string): string => text.replace(EVERY_UNSTORABLE, (found) => (found === '\u0000' ? '' : '\uFFFD'));

type Container = Record<string, unknown> | unknown[];

/**
 * After `express.json`: strings and object keys that PostgreSQL would refuse are made storable before
 * any route sees them, so such input is an ordinary value, never a 500. The walk keeps its own stack,
 * so a body nested a hundred thousand levels deep reaches the route's validation (a 422), not a crash.
 */
export const storableBody: RequestHandler = (req, _res, next) => {
  const body: unknown = req.body;
  if (body !== null && typeof body === 'object') {
    const pending: Container[] = [body as Container];
    for (let container = pending.pop(); container; container = pending.pop()) visit(container, pending);
  }
  next();
};

function visit(container: Container, pending: Container[]): void {
  if (!Array.isArray(container)) {
    for (const key of Object.keys(container)) {
      if (!HAS_UNSTORABLE.test(key)) continue;
      const value = container[key];
      delete container[key];
      container[storable(key)] = value;
    }
  }
  const entries: Array<[string | number, unknown]> = Array.isArray(container) ? container.map((v, i) => [i, v]) : Object.entries(container);
  for (const [key, value] of entries) {
    if (typeof value === 'string') {
      if (HAS_UNSTORABLE.test(value)) (container as Record<string | number, unknown>)[key] = storable(value);
    } else if (value !== null && typeof value === 'object') {
      pending.push(value as Container);
    }
  }
}
