import type { IncomingMessage, ServerResponse } from 'node:http';

type Level = 'info' | 'warn' | 'error';

/**
 * The level of pino-http's line for a finished request. A client's mistake (4xx) is news for the
 * client, not for the operator: info. A 503 says a dependency (the database, a moving actor) is
 * unavailable and carries `Retry-After`: a warning, which an outage repeats once per request. Any
 * other 5xx is a bug or an unplanned failure: error.
 */
export function requestLogLevel(_req: IncomingMessage, res: ServerResponse, error?: Error): Level {
  if (res.statusCode === 503) return 'warn';
  if (res.statusCode >= 500) return 'error';
  return error ? 'warn' : 'info';
}

/**
 * pino-http attaches a made-up `Error('failed with status code 503')` to every 5xx line, stack
 * included. For a 503 that stack says nothing (the cause is logged once, throttled, where it
 * happened), so it is left out of the line.
 */
export function requestErrorObject(_req: IncomingMessage, res: ServerResponse, _error: Error, fields: Record<string, unknown>): Record<string, unknown> {
  if (res.statusCode !== 503) return fields;
  const { err: _dropped, ...rest } = fields;
  return rest;
}
