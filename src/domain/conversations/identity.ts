import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationFailed } from '../../errors';

const MAX_AHEAD_SECONDS = 24 * 3600;

export interface VisitorIdentity {
  sub: string;
  email?: string;
  name?: string;
  phone?: string;
  exp: number;
}

/**
 * Verifies a widget identity token: a JWT, HS256 only, signed with the chatbot's
 * identity secret; `sub` required; `exp` required, in the future and at most 24 h ahead. Any failure
 * is a 422 on `identity`, and nothing of the token is used.
 */
export function verifyIdentity(token: string, secret: string, now = new Date()): VisitorIdentity {
  const refuse = (why: string) => validationFailed({ identity: [`The identity token is not valid: ${why}.`] });
  const parts = token.split('.');
  if (parts.length !== 3) throw refuse('it is not a JWT');
  const [header, payload, signature] = parts as [string, string, string];
  const head = decode(header);
  if (head?.alg !== 'HS256') throw refuse('it must be signed with HS256');
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse('the signature does not match');
  const claims = decode(payload);
  if (!claims || typeof claims.sub !== 'string' || !claims.sub.trim()) throw refuse('the sub claim is required');
  const seconds = now.getTime() / 1000;
  if (typeof claims.exp !== 'number') throw refuse('the exp claim is required');
  if (claims.exp <= seconds) throw refuse('it has expired');
  if (claims.exp > seconds + MAX_AHEAD_SECONDS) throw refuse('exp may be at most 24 hours ahead');
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  return { sub: claims.sub, exp: claims.exp, email: text(claims.email), name: text(claims.name), phone: text(claims.phone) };
}

/** The contact details a verified identity vouches for; only the claims it carries, trimmed and cut to the column sizes. */
export function verifiedDetails(identity: Record<string, unknown> | null | undefined): { name?: string; email?: string; phone?: string } {
  const text = (value: unknown, max: number) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : undefined);
  const details = { name: text(identity?.name, 255), email: text(identity?.email, 255), phone: text(identity?.phone, 64) };
  return Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined));
}

function decode(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
