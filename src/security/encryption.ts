import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Derives a purpose-bound 32-byte key from APP_KEY, so one secret never serves two uses. */
export function deriveKey(appKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), `parley:${purpose}`, 32));
}

/** AES-256-GCM; the stored form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function decrypt(stored: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unrecognised ciphertext format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** Seals tenant secrets (provider keys, identity secrets, integration tokens) under a key derived from APP_KEY. */
export class SecretBox {
  readonly #key: Buffer;
  constructor(appKey: Buffer) {
    this.#key = deriveKey(appKey, 'secrets');
  }
  seal(plaintext: string): string {
    return encrypt(plaintext, this.#key);
  }
  open(stored: string): string {
    return decrypt(stored, this.#key);
  }
}
