import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { badRequest, tooManyRequests } from '../errors';
import type { ReservedLimiter, ReservedLimiterOptions } from '../limits/reservedLimiter';
import type { RouteLimit } from '../openapi/registry';
import { inputOf, type DeclaredEndpoint } from './endpoint';
import { errorHandler } from './errorHandler';
import { withExpress } from './expressify';
import { holdHeaders, releaseHeaders, type HeldHeaders } from './hotAnswer';
import { IpLimitKeys, type TrustProxyFn } from './ipLimitKeys';
import { makeStorable, SMALL_BODY_LIMIT } from './jsonBody';
import { requestIdFrom } from './requestId';
import { loggedUrl, requestLogLevel } from './requestLog';
import { routePath } from './surfaceRouter';

/** How a hot route's finished request is reported to the process's metrics (the HTTP duration histogram). */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

export interface HotRoutesOptions<Deps> {
  /** The surface's base (`/widget`) and the endpoints taken off the generic stack: public (`auth: 'none'`), small bodies. */
  base: string;
  endpoints: readonly DeclaredEndpoint<Deps>[];
  /**
   * Of those, the ones whose handler answers with `answerJson` (src/http/hotAnswer.ts): their
   * headers are held and written with the answer in one `writeHead`. The others get them set before their handler runs.
   * A handler answered whole gets the node's plain request and response, without express's helpers
   * (`req.get`, `req.ip`, `res.json`...: read `req.headers`); the others get express's, as on the stack.
   */
  answeredWhole: (endpoint: DeclaredEndpoint<Deps>) => boolean;
  /**
   * The app: its request and response prototypes where a route needs them (src/http/expressify.ts),
   * its `etag fn`. Absent: requests come with express's prototypes already (a dispatcher mounted after `withExpress`).
   */
  app?: Express;
  deps: Deps;
  /** The route limits' counters: reserved from Redis a few points at a time (src/limits/reservedLimiter.ts). */
  routeLimiter: (options: ReservedLimiterOptions) => ReservedLimiter;
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
  /** The path's literal end (`/heartbeat`; empty when it ends with a parameter): checked before the pattern. */
  tail: string;
  params: string[];
  endpoint: DeclaredEndpoint<Deps>;
  /** `/widget/:key/heartbeat`: the route label the metrics have always used. */
  label: string;
  /** The headers every answer of the route carries, flat: the static ones, then X-RateLimit-Limit. */
  fixed: readonly string[];
  answeredWhole: boolean;
  limiter?: ReservedLimiter;
}

const JSON_TYPE = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;

/**
 * A node takes this share of a route limit's points from Redis at a time (at least one): 8 of the
 * heartbeat's 240 a minute, 4 of the state reads' 120, the stream's 20 one by one. The tolerance it
 * gives (docs/api.md, "Rate limits"): a client may be refused up to `nodes x (reserve - 1)` early.
 */
const RESERVE_SHARE = 1 / 30;

/**
 * The hot routes (widget heartbeat, stream, state catch-up) answered without the generic express
 * stack: one middleware, mounted first (and called by the node's listener before express, see
 * `listenerOf` in src/app.ts), that matches them by method and exact path and does what the stack
 * would have done for them, in the same order: request id, helmet and CORS headers (precomputed),
 * the route's per-IP limit (counted as the generic limit counts it, a few points reserved from Redis
 * at a time), the JSON body (same limit, same 400/413 answers, made storable), the endpoint's own
 * handler and validation, the error handler's JSON shapes, the metrics histogram; request lines are
 * sampled. Anything unusual (another content type or encoding, a chunked body, a path that does not
 * decode, HEAD, a trailing slash) goes on to the generic stack, which answers it as before. Why and
 * what it saved: docs/performance.md, "Cost per unit of work".
 */
export function hotRoutes<Deps>(options: HotRoutesOptions<Deps>): RequestHandler {
  const staticHeaders = learnHeaders(options.staticHeaders);
  const limiters = new Map<string, ReservedLimiter>();
  const limiterFor = (limit: RouteLimit) => {
    if (limit.by !== 'ip') throw new Error(`${limit.name}: hot routes are public, so their limits are per IP`);
    let limiter = limiters.get(limit.name);
    const reserve = Math.max(1, Math.floor(limit.points * RESERVE_SHARE));
    if (!limiter) limiters.set(limit.name, (limiter = options.routeLimiter({ name: limit.name, points: limit.points, duration: limit.seconds, reserve })));
    return limiter;
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
      tail: endpoint.path.slice(endpoint.path.lastIndexOf('}') + 1),
      params,
      endpoint,
      label: `${options.base}${routePath(options.base, endpoint.path)}`,
      fixed: endpoint.limit ? [...staticHeaders, 'X-RateLimit-Limit', String(endpoint.limit.points)] : staticHeaders,
      answeredWhole: options.answeredWhole(endpoint),
      limiter: endpoint.limit && limiterFor(endpoint.limit),
    };
  });
  const app = options.app;
  const expressify = app ? (req: Request, res: Response) => withExpress(app, req, res) : () => undefined;
  // The app's trust function, read without giving the request express's prototype (a plain request has no `app`).
  const limitKeys = new IpLimitKeys((req) => ((app ?? req.app)?.get('trust proxy fn') as TrustProxyFn | undefined));
  /** `req.ip` (proxy-addr under the app's `trust proxy`), for an address and X-Forwarded-For not seen before. */
  const ipOf = (req: Request): string | undefined => {
    expressify(req, req.res!);
    return req.ip;
  };
  let successes = 0;

  /** The request, from its limit to its answer; never rejects (a failure is answered, then reported). */
  const serve = async (route: HotRoute<Deps>, req: Request, res: Response, held: HeldHeaders, started: number) => {
    let failure: unknown;
    try {
      if (route.limiter) {
        const spending = route.limiter.spend(limitKeys.of(req, ipOf));
        const spent = spending instanceof Promise ? await spending : spending;
        held.remaining = String(spent.remaining);
        if (!route.answeredWhole) res.setHeader('X-RateLimit-Remaining', held.remaining);
        if (!spent.allowed) throw tooManyRequests(spent.msBeforeNext / 1000);
      }
      if (route.endpoint.body) req.body = await readJson(req);
      await route.endpoint.handler(inputOf(route.endpoint, options.deps, req as Request<Record<string, string>>), req as Request<Record<string, string>>, res);
    } catch (error) {
      failure = error;
      expressify(req, res);
      releaseHeaders(res);
      req.log = options.logger.child({ req: { id: req.id, method: req.method, url: loggedUrl(req.url) } });
      errorHandler(error, req, res, () => undefined);
    }
    const seconds = (performance.now() - started) / 1000;
    options.observe(req.method, route.label, res.statusCode, seconds);
    const failed = res.statusCode >= 400 || failure !== undefined;
    if (!failed && ++successes % options.logOneIn !== 0 && !options.logger.isLevelEnabled('debug')) return;
    const level = requestLogLevel(req, res, failed && res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : undefined);
    const line = { req: { id: req.id, method: req.method, url: loggedUrl(req.url) }, res: { statusCode: res.statusCode }, responseTime: Math.round(seconds * 1000), ...(failed || options.logger.isLevelEnabled('debug') ? {} : { sampled: options.logOneIn }) };
    options.logger[level](line, res.statusCode >= 500 ? 'request errored' : 'request completed');
  };

  return (req, res, next) => {
    const url = req.url;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    let route: HotRoute<Deps> | undefined;
    let match: RegExpExecArray | null = null;
    for (const each of routes) {
      if (each.method !== req.method || !path.endsWith(each.tail) || !(match = each.pattern.exec(path))) continue;
      route = each;
      break;
    }
    if (!route || !match) return next();
    const params = paramsOf(route, match);
    if (!params || (route.endpoint.body && !plainJsonBody(req))) return next();

    const started = performance.now();
    const held: HeldHeaders = { fixed: route.fixed, requestId: requestIdFrom(req), app };
    req.id = held.requestId;
    req.params = params;
    holdHeaders(res, held);
    if (!route.answeredWhole) {
      expressify(req, res);
      releaseHeaders(res);
    }
    void serve(route, req, res, held, started);
  };
}

/** The path's parameters, decoded as express decodes them; undefined when one does not decode (express answers that 400). */
function paramsOf<Deps>(route: HotRoute<Deps>, match: RegExpExecArray): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    for (let i = 0; i < route.params.length; i++) params[route.params[i]!] = decodeURIComponent(match[i + 1]!);
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

/**
 * Reads and parses the body as body-parser's strict JSON does: `{}` when empty, objects and arrays
 * only, a BOM skipped. Plain listeners rather than `once` (each makes a wrapper): the request is
 * read once, and a settled promise ignores a late rejection.
 */
function readJson(req: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    req.on('data', (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    req.on('error', reject);
    req.on('aborted', () => reject(Object.assign(new Error('request aborted'), { type: 'request.aborted' })));
    req.on('end', () => {
      let text = more ? Buffer.concat(more).toString('utf8') : first ? first.toString('utf8') : '';
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (!text.length) return resolve({});
      const opening = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
      if (opening !== '{' && opening !== '[') return reject(badRequest('The request body is not valid JSON.'));
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

/**
 * The headers `middleware` sets on a stand-in response, flat (`[name, value, ...]`): they are the
 * same on every answer, so they are learnt once. One value each (no header set twice, as Set-Cookie
 * would be), so that setting them one by one and writing them in one array say the same.
 */
function learnHeaders(middleware: readonly RequestHandler[]): string[] {
  const headers = new Map<string, [string, string]>();
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      if (typeof value === 'object') throw new Error(`a static header must have one value: ${name}`);
      headers.set(name.toLowerCase(), [name, String(value)]);
    },
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase())?.[1],
  };
  const req = { method: 'POST', headers: {}, url: '/', secure: false };
  for (const each of middleware) {
    let nexted = false;
    void each(req as unknown as Request, res as unknown as Response, () => (nexted = true));
    if (!nexted) throw new Error('a static-header middleware must call next() synchronously');
  }
  return [...headers.values()].flat();
}
