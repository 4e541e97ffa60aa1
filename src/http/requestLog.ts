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

/** Query parameters that are credentials: the widget's visitor id is the only key to a transcript. */
const SECRET_PARAMS = new Set(['visitor_id']);

/**
 * The URL as a request log line records it, with the value of every credential parameter replaced by
 * `[redacted]`. Any route, any form the query parser accepts: the name is compared decoded and without
 * brackets, so `visitor%5Fid=` and `visitor_id[]=` are redacted too (the route rejects them, but the
 * rejected request is logged all the same).
 */
export function loggedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    return SECRET_PARAMS.has(paramName(name)) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

/** `visitor%5Fid[0]` -> `visitor_id`: the name the query parser files the value under. */
function paramName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape: the parser keeps such a name as it is, and so does the comparison.
  }
  // indexOf, not /\[.*$/: that retried from every "[" of a run with a line break after it (quadratic).
  const bracket = name.indexOf('[');
  return (bracket < 0 ? name : name.slice(0, bracket)).trim();
}
