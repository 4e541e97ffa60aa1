import type { Response } from 'express';

const HELD = Symbol('held hot-route headers');

/** The headers of a hot route's answer, held until it is written (src/http/hotRoutes.ts). */
export interface HeldHeaders {
  /** `[name, value, name, value...]`: helmet's, CORS's and X-RateLimit-Limit, the same on every answer of the route. */
  fixed: readonly string[];
  requestId: string;
  /** X-RateLimit-Remaining, once the route limit has counted the request. */
  remaining?: string;
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
  const headers = [...held.fixed, 'X-Request-Id', held.requestId, 'Content-Type', JSON_TYPE, 'Content-Length', String(Buffer.byteLength(json))];
  if (held.remaining !== undefined) headers.push('X-RateLimit-Remaining', held.remaining);
  const etagOf: unknown = res.app.get('etag fn');
  const tag: unknown = typeof etagOf === 'function' ? etagOf(json, 'utf8') : undefined;
  if (typeof tag === 'string') headers.push('ETag', tag);
  res.writeHead(200, headers);
  res.end(json);
}

const JSON_TYPE = 'application/json; charset=utf-8';
