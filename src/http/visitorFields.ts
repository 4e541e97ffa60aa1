import { z } from 'zod';
import { NOT_BLANK } from './validate';

// The fields a visitor message carries on both surfaces that take one (widget stream, v1 send message).

export const visitorId = z.string().max(100).regex(NOT_BLANK, 'The visitor id field is required.');

export const visitorMessage = z.string().max(4000).regex(NOT_BLANK, 'The message field must not be empty or only whitespace.');

/** A small free-form object: enough for page or CRM context, never a way to store megabytes per message. */
export const contextMeta = z
  .record(z.string().max(100), z.unknown())
  .refine(fitsAsJson, 'The meta field must be at most 16000 characters as JSON.');

/** Deep nesting overflows `JSON.stringify` long before the size check: such meta is simply too big. */
function fitsAsJson(value: unknown): boolean {
  try {
    return JSON.stringify(value).length <= 16_000;
  } catch {
    return false;
  }
}
