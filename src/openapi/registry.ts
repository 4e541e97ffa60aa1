import type { z } from 'zod';
import type { RoleAbility } from '../../config/roles';

export type Surface = 'v1' | 'portal' | 'agent' | 'widget' | 'ops';
/** The token ability a route needs (`none`: public). */
export type Auth = 'api' | 'portal' | 'agent' | 'none';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A route limit (src/http/rateLimit.ts); the tests compare it with X-RateLimit-Limit. */
export interface RouteLimit {
  /** The counters' name: routes that give the same name spend one budget. */
  name: string;
  points: number;
  seconds: number;
  by: 'ip' | 'user';
}

/** One documented answer: a JSON body (zod schema), or another media type (pages, scripts, event streams). */
export interface Answer {
  description: string;
  json?: z.ZodType;
  media?: string;
  /** Server-sent events: event name -> the JSON of its `data:` line. */
  events?: Record<string, z.ZodType>;
}

/**
 * What the document says of one endpoint. Surfaces declare it together with the handler
 * (src/http/endpoint.ts), so the schemas described are the schemas the route parses with.
 */
export interface Endpoint {
  method: Method;
  /** OpenAPI path template: /api/v1/chatbots/{key}. */
  path: string;
  surface: Surface;
  summary: string;
  description?: string;
  auth: Auth;
  ability?: RoleAbility;
  /** Path parameters that differ from the shared ones of params.ts (by name). */
  params?: Record<string, z.ZodType>;
  query?: { schema: z.ZodObject; examples: Array<Record<string, string>> };
  /** Request headers the route reads; `replaces` names a query field the header stands for (documented as the header, the field deprecated). */
  headers?: Array<{ name: string; description: string; schema: z.ZodType; replaces?: string }>;
  /**
   * Examples are valid bodies; the sweep mutates them field by field, the document shows them.
   * `large`: the route parses up to 8 MB (knowledge uploads); every other body is limited to 96 KB (src/http/jsonBody.ts).
   */
  body?: { schema: z.ZodType; examples: unknown[]; large?: true };
  limit?: RouteLimit;
  /**
   * Successes and the errors particular to this route (a string is a description over the error
   * shape). 400/401/403/404/413/422/429 are added from the fields above unless listed in `never`.
   */
  responses: Record<number, Answer | string>;
  never?: number[];
}

/** The key a test or a report names an endpoint by: `POST /api/agent/login`. */
export const endpointKey = (endpoint: Pick<Endpoint, 'method' | 'path'>) => `${endpoint.method.toUpperCase()} ${endpoint.path}`;

/** The path's `{name}` parameters, in order. */
export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
