import express, { type RequestHandler } from 'express';

/**
 * The JSON limit of every route but knowledge uploads. Parsing is synchronous, so a big body blocks the
 * event loop for everyone; the largest legitimate body elsewhere (a widget or v1 message at its limits:
 * 4,000-character text, 16,000-character meta, 4,000-character identity token) is about 66 KB even when
 * every character takes three UTF-8 bytes.
 */
export const SMALL_BODY_LIMIT = 96 * 1024;
/** Admits a 1,000,000-character knowledge text even when every character is escaped in the JSON. */
export const KNOWLEDGE_BODY_LIMIT = 8 * 1024 * 1024;

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
  makeStorable(req.body);
  next();
};

/** Cleans a parsed JSON value in place, as every route receives it. */
export function makeStorable(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  const pending: Container[] = [body as Container];
  for (let container = pending.pop(); container; container = pending.pop()) visit(container, pending);
}

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

/**
 * Parses a JSON body (then makes it storable). Mounted by each surface after what needs no body (IP
 * limits, authentication), so a refused request is answered without its body being read. A second
 * parser on the same request is a no-op: body-parser skips a request whose body was already read.
 */
export function jsonBody(limit: number): RequestHandler {
  const parseJson = express.json({ limit });
  return (req, res, next) => parseJson(req, res, (error?: unknown) => (error ? next(error) : storableBody(req, res, next)));
}

/** The default parser: small bodies only. */
export const smallJsonBody = jsonBody(SMALL_BODY_LIMIT);
/** Only on the knowledge upload routes, after authentication and the ability check. */
export const knowledgeJsonBody = jsonBody(KNOWLEDGE_BODY_LIMIT);
