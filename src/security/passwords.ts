import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * scrypt from node:crypto: memory-hard, no native addon to build. N=2^14, r=8, p=5 is one of OWASP's
 * equal-cost recommendations, the one with the least memory per hash (16 MiB), so a burst of sign-ins
 * costs the server little memory; docs/security.md has the reasoning and the measured cost.
 */
const CURRENT: ScryptParams = { N: 2 ** 14, r: 8, p: 5 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/**
 * What a stored hash may ask of this process. Parameters travel with the hash, so without bounds a
 * corrupted or planted row could make one sign-in allocate gigabytes or run for minutes. The memory
 * bound admits OWASP's most memory-hungry option (N=2^17, r=8: 128 MiB); the work bound is four times
 * that option's.
 */
const MAX_MEMORY_BYTES = 128 * 1024 * 1024;
const MAX_WORK = 4 * 2 ** 17 * 8;
const MAX_P = 16;
const BYTES = { min: 16, max: 64 };
// OpenSSL refuses when 128*r*(N+p+2) exceeds maxmem; node's default (32 MiB) is below the bound above.
const MAXMEM = MAX_MEMORY_BYTES + 1024 * 1024;

const memoryOf = ({ N, r }: ScryptParams) => 128 * N * r;
const workOf = ({ N, r, p }: ScryptParams) => N * r * p;

interface StoredHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...CURRENT, maxmem: MAXMEM });
  return `scrypt$${CURRENT.N}$${CURRENT.r}$${CURRENT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** False for a wrong password, and for a stored hash this code cannot or will not check (see the bounds above). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  const actual = await scrypt(password, parsed.salt, parsed.key.length, { ...parsed.params, maxmem: MAXMEM });
  return timingSafeEqual(actual, parsed.key);
}

/**
 * Whether a hash that just verified should be replaced by one made now: its parameters cost less memory
 * or less work than the current ones, or its key is shorter. A stronger hash is left alone.
 */
export function needsRehash(stored: string): boolean {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  return memoryOf(parsed.params) < memoryOf(CURRENT) || workOf(parsed.params) < workOf(CURRENT) || parsed.key.length < KEY_LENGTH;
}

/** `scrypt$N$r$p$salt$key`, or undefined when malformed or outside the bounds. */
function parseStoredHash(stored: string): StoredHash | undefined {
  const [scheme, n, blockSize, lanes, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || rest.length > 0 || !salt || !key) return undefined;
  const params = { N: Number(n), r: Number(blockSize), p: Number(lanes) };
  const { N, r, p } = params;
  if (!Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1 || p > MAX_P) return undefined;
  // scrypt needs N to be a power of two greater than 1.
  if (!Number.isInteger(N) || N < 2 || !Number.isInteger(Math.log2(N))) return undefined;
  if (memoryOf(params) > MAX_MEMORY_BYTES || workOf(params) > MAX_WORK) return undefined;
  const saltBytes = Buffer.from(salt, 'base64');
  const keyBytes = Buffer.from(key, 'base64');
  const sized = (bytes: Buffer) => bytes.length >= BYTES.min && bytes.length <= BYTES.max;
  return sized(saltBytes) && sized(keyBytes) ? { params, salt: saltBytes, key: keyBytes } : undefined;
}
