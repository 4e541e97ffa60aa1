import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const REQUEST_ID = /^[\w.-]{1,100}$/;

/**
 * The request's id: a sane `X-Request-Id` from the caller (a proxy's, so its log and ours line up),
 * else a new UUID; echoed in the `X-Request-Id` answer header. Every request gets one, on the
 * generic stack (pino-http) and on the hot routes alike.
 */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const id = requestIdFrom(req);
  res.setHeader('X-Request-Id', id);
  return id;
}

/** The id alone, for the hot routes, which write their headers all at once (src/http/hotAnswer.ts). */
export function requestIdFrom(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
