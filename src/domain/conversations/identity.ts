import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationFailed } from '../../errors';

const MAX_AHEAD_SECONDS = 24 * 3600;
/** The `sub` is kept in a column of this size (`conversations.identity_sub`). */
const SUB_MAX = 255;

/** A type, not an interface, so it is also the plain record stored in `conversations.identity`. */
export type VisitorIdentity = {
  sub: string;
  email?: string;
  name?: string;
  phone?: string;
  exp: number;
};

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
  if (claims.sub.length > SUB_MAX) throw refuse(`the sub claim may be at most ${SUB_MAX} characters`);
  const seconds = now.getTime() / 1000;
  if (typeof claims.exp !== 'number') throw refuse('the exp claim is required');
  if (claims.exp <= seconds) throw refuse('it has expired');
  if (claims.exp > seconds + MAX_AHEAD_SECONDS) throw refuse('exp may be at most 24 hours ahead');
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  return { sub: claims.sub, exp: claims.exp, email: text(claims.email), name: text(claims.name), phone: text(claims.phone) };
}

/** A visitor as a widget request presents them: this device's visitor id, and the customer a verified token names (if any). */
export interface VisitorClaim {
  chatbotId: number;
  visitorKey: string;
  sub?: string;
}

/**
 * Whether a visitor may write to (and so read) a conversation of this chatbot. A conversation verified
 * for a customer, met with a verified token, is that customer's, on whichever device (the token
 * proves who they are; another customer's token never opens it). Otherwise it is the visitor id's
 * that opened it, as for every anonymous visitor.
 */
export function visitorMayWrite(conversation: { chatbotId: number; visitorKey: string; identitySub: string | null }, visitor: VisitorClaim): boolean {
  if (conversation.chatbotId !== visitor.chatbotId) return false;
  if (conversation.identitySub && visitor.sub) return conversation.identitySub === visitor.sub;
  return conversation.visitorKey === visitor.visitorKey;
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
