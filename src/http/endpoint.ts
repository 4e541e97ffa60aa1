import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Endpoint } from '../openapi/registry';
import { validationFailed } from '../errors';
import { parse } from './validate';

/** `/a/{conversation}/tags/{tag}` -> `'conversation' | 'tag'`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

export type PathParams<P extends string> = Record<PathParamNames<P>, string>;

/**
 * What a handler is given besides the request: the surface's dependencies, the path parameters, and
 * the declared body and query parsed on demand (a 422 names each failing field). On demand, so the
 * handler decides what comes first: a route answers 404 for a record that is not there before it
 * reads the body.
 */
export type EndpointInput<Deps, P extends string, B extends z.ZodType, Q extends z.ZodType> = Deps & {
  params: PathParams<P>;
  body(): z.output<B>;
  query(): z.output<Q>;
};

/**
 * One endpoint, declared once: what the document says of it (method, path, surface, token, role
 * ability, limit, schemas, answers) and the handler. The surface mounts it (src/http/surfaceRouter.ts)
 * and the document describes it (src/openapi/document.ts) from this one object.
 */
export interface EndpointDeclaration<Deps, P extends string, B extends z.ZodType, Q extends z.ZodObject> extends Omit<Endpoint, 'path' | 'body' | 'query'> {
  path: P;
  body?: { schema: B; examples: unknown[]; large?: true };
  query?: { schema: Q; examples: Array<Record<string, string>> };
  handler(input: EndpointInput<Deps, P, B, Q>, req: Request<PathParams<P>>, res: Response): Promise<void> | void;
}

/** A declared endpoint as a surface holds it, whatever its path and schemas. */
export interface DeclaredEndpoint<Deps> extends Endpoint {
  handler(input: EndpointInput<Deps, string, z.ZodType, z.ZodObject>, req: Request<Record<string, string>>, res: Response): Promise<void> | void;
}

/**
 * The declaring function of a surface whose handlers receive `Deps`: `const endpoint = endpointsOf<Deps>()`,
 * then `endpoint({ method, path, ..., handler })`. The path's parameters and the schemas type the handler.
 */
export function endpointsOf<Deps>() {
  return <P extends string, B extends z.ZodType = z.ZodNever, Q extends z.ZodObject = z.ZodObject<Record<never, never>>>(
    declaration: EndpointDeclaration<Deps, P, B, Q>,
  ): DeclaredEndpoint<Deps> => declaration as unknown as DeclaredEndpoint<Deps>;
}

/** The handler's input for one request. */
export function inputOf<Deps>(endpoint: Endpoint, deps: Deps, req: Request<Record<string, string>>): EndpointInput<Deps, string, z.ZodType, z.ZodObject> {
  return {
    ...deps,
    params: req.params,
    body: () => {
      if (!endpoint.body) throw new Error(`${endpoint.method} ${endpoint.path} declares no body`);
      return parse(endpoint.body.schema, req.body);
    },
    query: () => {
      if (!endpoint.query) throw new Error(`${endpoint.method} ${endpoint.path} declares no query`);
      return parse(endpoint.query.schema, queryWithHeaders(endpoint, req));
    },
  } as EndpointInput<Deps, string, z.ZodType, z.ZodObject>;
}

/**
 * The query with the declared headers standing in for the fields they replace. Both at once with
 * different values is ambiguous (a proxy or a script mixing two callers), so it is refused rather
 * than one silently winning.
 */
function queryWithHeaders(endpoint: Endpoint, req: Request<Record<string, string>>): Record<string, unknown> {
  const query = { ...(req.query as Record<string, unknown>) };
  for (const header of endpoint.headers ?? []) {
    const value = req.get(header.name);
    if (value === undefined || !header.replaces) continue;
    const inQuery = query[header.replaces];
    if (inQuery !== undefined && (typeof inQuery !== 'string' || inQuery.trim() !== value.trim())) {
      const label = header.replaces.replaceAll('_', ' ');
      throw validationFailed({ [header.replaces]: [`The ${label} must be the same in the ${header.name} header and the ${header.replaces} parameter.`] });
    }
    query[header.replaces] = value;
  }
  return query;
}
