import { hash } from 'node:crypto';
import express, { type Express, type Response } from 'express';

/** Express's weak ETag generator: the `etag fn` of an app whose `etag` setting is left as it is (one shared function). */
const expressWeakEtag: unknown = express().get('etag fn');

const HELD = Symbol('held hot-route headers');

/** The headers of a hot route's answer, held until it is written (src/http/hotRoutes.ts). */
export interface HeldHeaders {
  /** `[name, value, name, value...]`: helmet's, CORS's and X-RateLimit-Limit, the same on every answer of the route. */
  fixed: readonly string[];
  requestId: string;
  /** X-RateLimit-Remaining, once the route limit has counted the request. */
  remaining?: string;
  /** The app, for its `etag fn` (the response may not have express's prototype, and so no `res.app`); absent: `res.app`. */
  app?: Pick<Express, 'get'>;
}

type HoldingResponse = Response & { [HELD]?: HeldHeaders };

/** Holds `headers` for the answer: `answerJson` writes them with it, or `releaseHeaders` sets them on the response. */
export function holdHeaders(res: Response, headers: HeldHeaders): void {
  (res as HoldingResponse)[HELD] = headers;
}

/** Sets the held headers on the response, as the generic stack would have (before an error answer, say); nothing when none are held. */
export function releaseHeaders(res: Response): void {
  const held = (res as HoldingResponse)[HELD];
  if (!held) return;
  (res as HoldingResponse)[HELD] = undefined;
  for (let i = 0; i < held.fixed.length; i += 2) res.setHeader(held.fixed[i]!, held.fixed[i + 1]!);
  res.setHeader('X-Request-Id', held.requestId);
  if (held.remaining !== undefined) res.setHeader('X-RateLimit-Remaining', held.remaining);
}

/**
 * A 200 JSON answer. On a hot route that holds its headers: every header in one `writeHead` from a
 * flat array (Node's quick path, taken only when no header was set before) and the body in one
 * `end`, with what express's `res.json` would have added (`Content-Type` with its charset,
 * `Content-Length`, the app's `etag fn`'s `ETag`); a POST is never fresh, so nothing
 * else of `res.send` applies. Anywhere else (the generic stack): `res.json`.
 */
export function answerJson(res: Response, body: unknown): void {
  const held = (res as HoldingResponse)[HELD];
  if (!held || res.req.method !== 'POST') {
    releaseHeaders(res);
    res.json(body);
    return;
  }
  (res as HoldingResponse)[HELD] = undefined;
  const json = JSON.stringify(body);
  const length = Buffer.byteLength(json);
  const fixed = held.fixed;
  const headers = fixed.slice();
  headers.push('X-Request-Id', held.requestId, 'Content-Type', JSON_TYPE, 'Content-Length', String(length));
  if (held.remaining !== undefined) headers.push('X-RateLimit-Remaining', held.remaining);
  const etagOf: unknown = (held.app ?? res.app).get('etag fn');
  const tag: unknown = etagOf === expressWeakEtag ? weakEtag(json, length) : typeof etagOf === 'function' ? etagOf(json, 'utf8') : undefined;
  if (typeof tag === 'string') headers.push('ETag', tag);
  res.writeHead(200, headers);
  res.end(json);
}

/**
 * The ETag express's default (weak) generator gives `json` of `length` UTF-8 bytes, without the
 * Buffer it copies the body into and the Hash object it makes for it: one SHA-1 of the string.
 */
export function weakEtag(json: string, length: number): string {
  if (length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return `W/"${length.toString(16)}-${hash('sha1', json, 'base64').substring(0, 27)}"`;
}

const JSON_TYPE = 'application/json; charset=utf-8';
