import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { badRequest } from '../errors';
import type { LimiterFactory } from '../limits/limiters';
import type { RouteLimit } from '../openapi/registry';
import { inputOf, type DeclaredEndpoint } from './endpoint';
import { errorHandler } from './errorHandler';
import { makeStorable, SMALL_BODY_LIMIT } from './jsonBody';
import { rateLimit } from './rateLimit';
import { requestIdOf } from './requestId';
import { loggedUrl, requestLogLevel } from './requestLog';
import { routePath } from './surfaceRouter';

/** How a hot route's finished request is reported to the process's metrics (the HTTP duration histogram). */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

export interface HotRoutesOptions<Deps> {
  /** The surface's base (`/widget`) and the endpoints taken off the generic stack: public (`auth: 'none'`), small bodies. */
  base: string;
  endpoints: readonly DeclaredEndpoint<Deps>[];
  deps: Deps;
  limiters: LimiterFactory;
  /**
   * Middleware whose headers do not depend on the request (helmet, the surface's CORS for a non-preflight):
   * run once on a stand-in at start-up, and their headers set on every hot answer.
   */
  staticHeaders: readonly RequestHandler[];
  logger: Logger;
  observe: ObserveRequest;
  /**
   * A successful hot request is logged one time in this many; every other answer (4xx, 5xx) is
   * logged, and so is every request when the logger is at debug or trace (an operator asking for detail).
   */
  logOneIn: number;
}

interface HotRoute<Deps> {
  method: string;
  pattern: RegExp;
  params: string[];
  endpoint: DeclaredEndpoint<Deps>;
  /** `/widget/:key/heartbeat`: the route label the metrics have always used. */
  label: string;
  limit?: RequestHandler;
}

const JSON_TYPE = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;

/**
 * The hot routes (widget heartbeat, stream, state catch-up) answered without the generic express
 * stack: one middleware, mounted first (and called by the node's listener before express, see
 * `listenerOf` in src/app.ts), that matches them by method and exact path and does what the stack
 * would have done for them, in the same order: request id, helmet and CORS headers (precomputed),
 * the route's per-IP limit, the JSON body (same limit, same 400/413 answers, made storable), the
 * endpoint's own handler and validation, the error handler's JSON shapes, the metrics histogram;
 * request lines are sampled. Anything unusual (another content type or encoding, a chunked body, a
 * path that does not decode, HEAD, a trailing slash) goes on to the generic stack, which answers it
 * as before. Why and what it saved: docs/performance.md, "Cost per unit of work".
 */
export function hotRoutes<Deps>(options: HotRoutesOptions<Deps>): RequestHandler {
  const headers = learnHeaders(options.staticHeaders);
  const limits = new Map<string, RequestHandler>();
  const limitFor = (limit: RouteLimit) => {
    let handler = limits.get(limit.name);
    if (!handler) limits.set(limit.name, (handler = rateLimit(options.limiters, { name: limit.name, points: limit.points, duration: limit.seconds, by: limit.by })));
    return handler;
  };
  const routes: HotRoute<Deps>[] = options.endpoints.map((endpoint) => {
    if (endpoint.auth !== 'none' || endpoint.body?.large) throw new Error(`${endpoint.path}: only public routes with small bodies can be hot`);
    const params: string[] = [];
    const source = endpoint.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
      params.push(name);
      return '([^/]+)';
    });
    return {
      method: endpoint.method.toUpperCase(),
      pattern: new RegExp(`^${source}$`),
      params,
      endpoint,
      label: `${options.base}${routePath(options.base, endpoint.path)}`,
      limit: endpoint.limit && limitFor(endpoint.limit),
    };
  });
  let successes = 0;

  return (req, res, next) => {
    const url = req.url;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const route = routes.find((r) => r.method === req.method && r.pattern.test(path));
    if (!route) return next();
    const params = paramsOf(route, path);
    if (!params || (route.endpoint.body && !plainJsonBody(req))) return next();

    const started = process.hrtime.bigint();
    req.id = requestIdOf(req, res);
    for (const [name, value] of headers) res.setHeader(name, value);
    req.params = params;
    let failure: unknown;
    void (async () => {
      try {
        if (route.limit) await run(route.limit, req, res);
        if (route.endpoint.body) req.body = await readJson(req);
        await route.endpoint.handler(inputOf(route.endpoint, options.deps, req as Request<Record<string, string>>), req as Request<Record<string, string>>, res);
      } catch (error) {
        failure = error;
        req.log = options.logger.child({ req: { id: req.id, method: req.method, url: loggedUrl(url) } });
        errorHandler(error, req, res, () => undefined);
      }
    })().finally(() => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.observe(req.method, route.label, res.statusCode, seconds);
      const failed = res.statusCode >= 400 || failure !== undefined;
      if (!failed && ++successes % options.logOneIn !== 0 && !options.logger.isLevelEnabled('debug')) return;
      const level = requestLogLevel(req, res, failed && res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : undefined);
      const line = { req: { id: req.id, method: req.method, url: loggedUrl(url) }, res: { statusCode: res.statusCode }, responseTime: Math.round(seconds * 1000), ...(failed || options.logger.isLevelEnabled('debug') ? {} : { sampled: options.logOneIn }) };
      options.logger[level](line, res.statusCode >= 500 ? 'request errored' : 'request completed');
    });
  };
}

/** The path's parameters, decoded as express decodes them; undefined when one does not decode (express answers that 400). */
function paramsOf<Deps>(route: HotRoute<Deps>, path: string): Record<string, string> | undefined {
  const match = route.pattern.exec(path)!;
  const params: Record<string, string> = {};
  try {
    route.params.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
  } catch {
    return undefined;
  }
  return params;
}

/** A body the hot path reads itself: declared JSON in UTF-8, not compressed, with a length within the small-body limit. */
function plainJsonBody(req: Request): boolean {
  const type = req.headers['content-type'];
  const encoding = req.headers['content-encoding'];
  const length = req.headers['content-length'];
  return (
    type !== undefined &&
    JSON_TYPE.test(type) &&
    (encoding === undefined || encoding.toLowerCase() === 'identity') &&
    length !== undefined &&
    /^\d+$/.test(length) &&
    Number(length) <= SMALL_BODY_LIMIT &&
    req.headers['transfer-encoding'] === undefined
  );
}

/** Reads and parses the body as body-parser's strict JSON does: `{}` when empty, objects and arrays only, a BOM skipped. */
function readJson(req: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', reject);
    req.once('aborted', () => reject(Object.assign(new Error('request aborted'), { type: 'request.aborted' })));
    req.once('end', () => {
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (!text.length) return resolve({});
      const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
      if (first !== '{' && first !== '[') return reject(badRequest('The request body is not valid JSON.'));
      try {
        const body: unknown = JSON.parse(text);
        makeStorable(body);
        resolve(body);
      } catch {
        reject(badRequest('The request body is not valid JSON.'));
      }
    });
  });
}

/** One express middleware, awaited: resolves when it calls next(), rejects when it throws or passes an error. */
function run(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const next: NextFunction = (error?: unknown) => (error ? reject(error) : resolve());
    Promise.resolve(middleware(req, res, next)).catch(reject);
  });
}

/** The headers `middleware` sets on a stand-in response: they are the same on every answer, so they are learnt once. */
function learnHeaders(middleware: readonly RequestHandler[]): Array<[string, string | number | readonly string[]]> {
  const headers = new Map<string, [string, string | number | readonly string[]]>();
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name.toLowerCase(), [name, value]),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase())?.[1],
  };
  const req = { method: 'POST', headers: {}, url: '/', secure: false };
  for (const each of middleware) {
    let nexted = false;
    void each(req as unknown as Request, res as unknown as Response, () => (nexted = true));
    if (!nexted) throw new Error('a static-header middleware must call next() synchronously');
  }
  return [...headers.values()];
}
