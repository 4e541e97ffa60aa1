import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../security/encryption';

// The link a follow-up mail carries back to its conversation (docs/routing.md "The link").
// `v1.<payload>.<mac>`: the payload (base64url JSON) names the conversation and the mail, and when
// the link expires; the mac is HMAC-SHA256 over `v1.<payload>` with a key derived from APP_KEY for
// this purpose only. Nothing in it can be guessed or altered without the key, and the mac is compared
// in constant time.

const VERSION = 'v1';
const PURPOSE = 'offline-followup-link';
/** A week: long enough to read the mail after a weekend, short enough that an old mail stops opening the chat. */
export const LINK_LIFETIME_SECONDS = 7 * 24 * 3600;

export interface LinkClaims {
  /** The conversation's public id. */
  conversationId: string;
  /** The follow-up mail (`offline_followups.id`) the link was sent in. */
  followupId: number;
  /** Expiry, seconds since the epoch. */
  expiresAt: number;
}

export type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const mac = (key: Buffer, signed: string): Buffer => createHmac('sha256', key).update(signed).digest();

export class FollowUpLinks {
  private readonly key: Buffer;

  constructor(appKey: Buffer) {
    this.key = deriveKey(appKey, PURPOSE);
  }

  sign(conversationId: string, followupId: number, now = new Date()): string {
    const claims = { c: conversationId, f: followupId, e: Math.floor(now.getTime() / 1000) + LINK_LIFETIME_SECONDS };
    const signed = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signed}.${mac(this.key, signed).toString('base64url')}`;
  }

  /** The claims of a link this server signed and that has not expired; why not otherwise. */
  verify(token: string, now = new Date()): LinkCheck {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
    const signed = `${parts[0]}.${parts[1]}`;
    const given = Buffer.from(parts[2]!, 'base64url');
    const expected = mac(this.key, signed);
    // Same length first: timingSafeEqual throws on a length mismatch (the length itself is public).
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
    const claims = decode(parts[1]!);
    if (!claims) return { ok: false, reason: 'malformed' };
    if (claims.expiresAt <= now.getTime() / 1000) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }
}

function decode(part: string): LinkClaims | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { c, f, e } = value;
    if (typeof c !== 'string' || !Number.isSafeInteger(f) || typeof e !== 'number') return undefined;
    return { conversationId: c, followupId: f as number, expiresAt: e };
  } catch {
    return undefined;
  }
}
