import { z } from 'zod';
import { isTimeZone } from '../domain/notifications/clock';
import { NOT_BLANK } from './validate';

// The fields a visitor message carries on both surfaces that take one (widget stream, v1 send message),
// and what the widget reports about the visitor with its messages and beats.

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

/**
 * A zone name as browsers report one: Area/Location (`Europe/Paris`, `America/Argentina/Salta`,
 * `Etc/GMT+5`) or an upper-case one such as `UTC` or `EST5EDT`; or nothing. Never an offset such as
 * +01:00, which does not follow daylight saving.
 */
const ZONE_OR_NONE = /^(?:[A-Za-z][A-Za-z_-]*(?:\/[A-Za-z0-9_+-]+)+|[A-Z][A-Z0-9+-]{1,9})?$/;

/**
 * The visitor's IANA time zone as the widget reports it (`Europe/Paris`); empty means unknown. A name
 * of the right form that this server's zone database does not know (a zone newer than its ICU) is
 * dropped rather than refused: the visitor's message or beat matters more than their zone.
 */
export const visitorTimezone = z
  .string()
  .max(64)
  .regex(ZONE_OR_NONE, 'The timezone field must be a time zone name such as Europe/Paris.')
  .transform((zone) => (isTimeZone(zone) ? zone : undefined))
  .optional();
