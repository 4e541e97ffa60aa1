import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

/**
 * Gives a request and its response what express's `app.handle` gives them (the app's request and
 * response prototypes: `req.ip`, `req.get`, `res.json`...; the circular references; `res.locals`),
 * unless they already have them. The node's listener (`listenerOf` in src/app.ts) leaves them plain
 * for the heartbeat, which needs none of it; the hot routes call this where a handler, the error
 * handler or `req.ip` needs express.
 */
export function withExpress(app: Express, req: IncomingMessage, res: ServerResponse): void {
  if (Object.getPrototypeOf(req) === app.request) return;
  const request = req as Request;
  const response = res as Response;
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  response.locals ??= Object.create(null) as Response['locals'];
}
