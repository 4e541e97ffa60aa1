import { z } from 'zod';
import { named } from './named';

export const fieldErrors = z.record(z.string(), z.array(z.string())).describe('field name (dot path for nested fields, `body` for the body itself) -> readable messages');

/** Every rejection (src/http/errorHandler.ts). A few carry extra fields beside these, so others are allowed. */
export const errorBody = named(
  'Error',
  z.looseObject({
    message: z.string(),
    code: z.string().describe('stable machine id: unauthenticated, forbidden, not_found, route_not_found, validation_failed, unprocessable, bad_request, payload_too_large, too_many_requests, server_error, ...'),
    errors: fieldErrors.optional(),
    request_id: z.string().optional().describe('on 5xx only: the id the error was logged under'),
  }),
  'Every rejected request: `message`, a stable `code`, and `errors` on a validation failure.',
);

export const validationErrorBody = named(
  'ValidationError',
  z.looseObject({ message: z.string(), code: z.string(), errors: fieldErrors }),
  'A 422 validation failure: `message` is the first error (with "(and N more errors)"), `errors` names every failing field.',
);

export const messageBody = named('MessageOnly', z.object({ message: z.string() }), 'A confirmation sentence.');
