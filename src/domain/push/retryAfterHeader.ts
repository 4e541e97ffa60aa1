/**
 * Milliseconds to wait that an HTTP `Retry-After` asks for: delay-seconds or an HTTP date
 * (RFC 9110 10.2.3). Undefined when absent or unreadable; a date in the past means "now" (0).
 */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP date format names its month; without the check Date.parse would read "1.5" as a day in 2001.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
