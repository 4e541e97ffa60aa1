import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed by the webhook's
 * secret (docs/webhooks.md "Verifying a delivery"). The timestamp is inside what is signed, so a
 * receiver that refuses old timestamps refuses replays.
 */
export const SIGNATURE_HEADER = 'Parley-Signature';

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export const signatureHeader = (secret: string, timestamp: number, body: string): string => `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`;

/** How far a delivery's timestamp may be from the receiver's clock by default: five minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * What a receiver does with a delivery (the reference for the snippets in docs/webhooks.md, and what
 * the test receivers run): parse the header, recompute the HMAC over the raw body, compare in constant
 * time, and refuse a timestamp outside the tolerance. True only when every check passes.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  options: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signatureOf(secret, t, rawBody), 'hex');
  // Several v1 values may come while a secret is rotated: any one that matches will do.
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
