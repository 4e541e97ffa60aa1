import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;
const TOKEN_PATTERN = /^(\d{1,15})\|([A-Za-z0-9]{40})$/;

/** 40 characters from a 62-letter alphabet, drawn without modulo bias. */
export function randomSecret(length = SECRET_LENGTH): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Splits `<id>|<secret>`; undefined for anything malformed. */
export function parseToken(raw: string): { id: number; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(raw);
  return match ? { id: Number(match[1]), secret: match[2]! } : undefined;
}

/** Compares a presented secret with a stored SHA-256 hex digest in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
