import { Router, type Request, type RequestHandler } from 'express';
import type { TokenAbility } from '../../config/roles';
import type { RouteLimit } from '../openapi/registry';
import { authenticate, requireAbility } from './authenticate';
import { inputOf, type DeclaredEndpoint } from './endpoint';
import { jsonBody, KNOWLEDGE_BODY_LIMIT, SMALL_BODY_LIMIT, smallJsonBody } from './jsonBody';
import type { LimiterFactory } from '../limits/limiters';
import { rateLimit } from './rateLimit';

/** Where a surface is mounted, and the token that opens its gated routes. */
export interface SurfaceMount {
  base: string;
  /** Routes declared `auth: 'none'` (sign-in, the widget) are mounted above the token gate. */
  token?: TokenAbility;
}

/** `/api/agent/conversations/{conversation}` under `/api/agent` -> `/conversations/:conversation` (express syntax). */
export function routePath(base: string, path: string): string {
  if (!path.startsWith(`${base}/`) && path !== base) throw new Error(`${path} is not under its surface's base ${base}`);
  return (path.slice(base.length) || '/').replace(/\{(\w+)\}/g, ':$1');
}

/**
 * A surface's router, built from its declarations in the order requests must meet the checks
 * (docs/security.md "Small bodies before authentication"): public routes first (their per-IP limit,
 * then their body); then the token gate; then the routes that parse large bodies (after the role
 * check); then the small body parser every other gated route shares. On each route the role ability
 * comes before the route limit, so a refused role spends nothing.
 */
export function surfaceRouter<Deps>(mount: SurfaceMount, endpoints: readonly DeclaredEndpoint<Deps>[], deps: Deps, limiters: LimiterFactory): Router {
  const router = Router();
  const limits = sharedLimits(limiters);
  const add = (endpoint: DeclaredEndpoint<Deps>, parsesBody: boolean) => {
    const chain: RequestHandler[] = [];
    if (endpoint.ability) chain.push(requireAbility(endpoint.ability));
    if (endpoint.limit) chain.push(limits(endpoint.limit));
    if (parsesBody && endpoint.body) chain.push(jsonBody(endpoint.body.large ? KNOWLEDGE_BODY_LIMIT : SMALL_BODY_LIMIT));
    const handle: RequestHandler = (req, res) => endpoint.handler(inputOf(endpoint, deps, req as Request<Record<string, string>>), req as Request<Record<string, string>>, res);
    router[endpoint.method](routePath(mount.base, endpoint.path), ...chain, handle);
  };

  const gated = endpoints.filter((endpoint) => endpoint.auth !== 'none');
  for (const endpoint of endpoints) if (endpoint.auth === 'none') add(endpoint, true);
  if (!gated.length) return router;
  if (!mount.token || gated.some((endpoint) => endpoint.auth !== mount.token)) throw new Error(`${mount.base}: every gated route must take the surface's ${mount.token} token`);
  router.use(authenticate(mount.token));
  for (const endpoint of gated) if (endpoint.body?.large) add(endpoint, true);
  router.use(smallJsonBody);
  for (const endpoint of gated) if (!endpoint.body?.large) add(endpoint, false);
  return router;
}

/** One limiter per limit name, so routes that name the same limit spend one budget whichever store keeps it. */
function sharedLimits(limiters: LimiterFactory): (limit: RouteLimit) => RequestHandler {
  const made = new Map<string, { limit: RouteLimit; handler: RequestHandler }>();
  return (limit) => {
    const existing = made.get(limit.name);
    if (existing) {
      if (existing.limit.points !== limit.points || existing.limit.seconds !== limit.seconds || existing.limit.by !== limit.by) {
        throw new Error(`the route limit ${limit.name} is declared twice with different terms`);
      }
      return existing.handler;
    }
    const handler = rateLimit(limiters, { name: limit.name, points: limit.points, duration: limit.seconds, by: limit.by });
    made.set(limit.name, { limit, handler });
    return handler;
  };
}
