/**
 * The one error type every layer throws (domain, actors, surfaces). It carries the HTTP status the
 * surfaces answer with; src/http/errorHandler.ts is the only place that turns it into a body.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: {
      errors?: Record<string, string[]>;
      headers?: Record<string, string>;
      /** Extra fields a few answers carry beside `message` (e.g. a v1 knowledge id on a failed training). */
      body?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new AppError(400, 'bad_request', message);
export const unauthenticated = () => new AppError(401, 'unauthenticated', 'Unauthenticated.');
export const forbidden = (message = 'This action is unauthorized.') => new AppError(403, 'forbidden', message);
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found.`);
export const payloadTooLarge = () => new AppError(413, 'payload_too_large', 'The request body is too large.');

/** 422 with Laravel-style `errors`: field name -> readable messages. The message is the first error. */
export function validationFailed(errors: Record<string, string[]>, body?: Record<string, unknown>): AppError {
  const messages = Object.values(errors).flat();
  const more = messages.length - 1;
  const message = more > 0 ? `${messages[0]} (and ${more} more error${more > 1 ? 's' : ''})` : (messages[0] ?? 'The given data was invalid.');
  return new AppError(422, 'validation_failed', message, { errors, body });
}

/** A business rule refused the request (422 without field errors unless given). */
export const unprocessable = (message: string, body?: Record<string, unknown>) =>
  new AppError(422, 'unprocessable', message, { body });

export function tooManyRequests(retryAfterSeconds: number, message?: string, headers: Record<string, string> = {}): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(429, 'too_many_requests', message ?? `Too many requests. Try again in ${seconds} seconds.`, {
    headers: { ...headers, 'Retry-After': String(seconds) },
  });
}

/** Seconds a client should wait before sending a request again that failed because PostgreSQL was unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** PostgreSQL could not be reached (down, restarting, out of connections): the request did not complete; sending it again later is the remedy. */
export const databaseUnavailable = () =>
  new AppError(503, 'database_unavailable', 'The service cannot reach its database right now. Try again in a few seconds.', {
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
