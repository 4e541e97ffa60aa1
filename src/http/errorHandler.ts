import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDatabaseUnavailable, warnDatabaseUnavailable } from '../db/unavailable';
import { AppError, badRequest, databaseUnavailable, payloadTooLarge } from '../errors';

/** Unknown routes: 404 JSON like every other rejection. */
export const routeNotFound: RequestHandler = (req) => {
  throw new AppError(404, 'route_not_found', `The route ${req.method} ${req.path} could not be found.`);
};

/**
 * The one place errors become responses: `{message, code}` plus `errors` on 422. An unreachable
 * database is 503 with `Retry-After` and a throttled warning (an outage is not a bug, and would
 * otherwise log a stack per request). Other unknown errors are logged with the request id and
 * answered 500 with a generic message, never their text.
 */
export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  let known = toAppError(error);
  if (!known && isDatabaseUnavailable(error)) {
    warnDatabaseUnavailable(req.log, error, `${req.method} ${req.path}`);
    known = databaseUnavailable();
  }
  if (!known) {
    req.log.error({ err: error }, 'unhandled error');
  }
  const appError = known ?? new AppError(500, 'server_error', 'Something went wrong on our side. The action did not complete.');
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(appError.details.headers ?? {})) res.setHeader(name, value);
  res.status(appError.status).json({
    message: appError.message,
    code: appError.code,
    ...(appError.details.errors ? { errors: appError.details.errors } : {}),
    ...appError.details.body,
    ...(appError.status >= 500 ? { request_id: String(req.id) } : {}),
  });
};

/** Our own errors, and the client errors of the router (a path that does not decode) and body-parser mapped onto the same shape. */
function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  // The router decodes path parameters before any route runs (and marks its failure 400): `%FF` alone is not UTF-8.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) return badRequest('The request path is not valid: it holds a percent-encoded sequence that is not UTF-8.');
  if (typeof error !== 'object' || error === null) return undefined;
  if (!('type' in error)) return exposedClientError(error);
  switch (error.type) {
    case 'entity.parse.failed':
      return badRequest('The request body is not valid JSON.');
    case 'entity.too.large':
      return payloadTooLarge();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'unsupported_media_type', 'The request body encoding is not supported.');
    case 'request.aborted':
      return new AppError(400, 'request_aborted', 'The request was aborted.');
    default:
      return exposedClientError(error);
  }
}

/** Other client errors body-parser raises without a `type` (a body that claims gzip but is not) say so themselves. */
function exposedClientError(error: object): AppError | undefined {
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  return new AppError(status, 'bad_request', 'The request body could not be decoded.');
}
