import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../security/encryption';

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Channel authorizations: `<key id>:<hex HMAC-SHA256 of "socket_id:channel">`. The key id (first 16 hex
 * characters of SHA-256 of the signing key) is public; it names which APP_KEY signed, so an authorization
 * made before a key rotation is recognisably stale rather than just "wrong".
 */
export class ChannelSigner {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(appKey: Buffer) {
    this.#key = deriveKey(appKey, 'broadcasting');
    this.keyId = createHash('sha256').update(this.#key).digest('hex').slice(0, 16);
  }

  sign(socketId: string, channel: string): string {
    return `${this.keyId}:${this.#digest(socketId, channel).toString('hex')}`;
  }

  verify(socketId: string, channel: string, auth: string): boolean {
    const separator = auth.indexOf(':');
    if (separator < 0 || auth.slice(0, separator) !== this.keyId) return false;
    const hex = auth.slice(separator + 1);
    if (!DIGEST.test(hex)) return false;
    return timingSafeEqual(Buffer.from(hex, 'hex'), this.#digest(socketId, channel));
  }

  #digest(socketId: string, channel: string): Buffer {
    return createHmac('sha256', this.#key).update(`${socketId}:${channel}`).digest();
  }
}
