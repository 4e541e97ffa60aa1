import { strict as assert } from 'node:assert';
import { hashSecret, parseToken, randomSecret, secretMatches } from '../../src/security/tokens';
import { randomBytes, scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from '../../src/security/passwords';
import { SecretBox } from '../../src/security/encryption';

describe('token secrets', () => {
  it('draws 40 alphanumeric characters, different each time', () => {
    const a = randomSecret();
    assert.match(a, /^[A-Za-z0-9]{40}$/);
    assert.notEqual(a, randomSecret());
  });

  it('stores SHA-256 hex and matches only the same secret', () => {
    const secret = randomSecret();
    const stored = hashSecret(secret);
    assert.match(stored, /^[0-9a-f]{64}$/);
    assert.equal(hashSecret(secret), stored, 'deterministic');
    assert.ok(secretMatches(secret, stored));
    // One character changed (to one it cannot already be: a random secret ends in `x` one time in 62).
    const changed = `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
    assert.ok(!secretMatches(changed, stored));
    assert.ok(!secretMatches(secret, 'abcd'), 'a malformed stored hash never matches');
  });

  it('parses only <id>|<40 chars>', () => {
    const secret = randomSecret();
    assert.deepEqual(parseToken(`12|${secret}`), { id: 12, secret });
    for (const bad of ['', `12${secret}`, `x|${secret}`, `12|${secret}x`, `12|${secret.slice(1)}`, `12|${secret.slice(1)}!`, ` 12|${secret}`]) {
      assert.equal(parseToken(bad), undefined, bad);
    }
  });
});

describe('passwords', () => {
  it('hashes with a salt and verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    assert.notEqual(a, b);
    assert.ok(await verifyPassword('correct horse', a));
    assert.ok(!(await verifyPassword('wrong horse', a)));
    assert.ok(!(await verifyPassword('x', 'md5$whatever')));
  });

  /** A stored hash with the given parameters, as another version (or a tampered row) would hold it. */
  function storedWith(password: string, N: number, r: number, p: number): string {
    const salt = randomBytes(16);
    const key = scryptSync(password, salt, 32, { N, r, p, maxmem: 256 * 1024 * 1024 });
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  it("hashes at N=2^14, r=8, p=5 (one of OWASP's recommended scrypt settings), with a 16-byte salt and a 32-byte key", async () => {
    const [scheme, N, r, p, salt, key] = (await hashPassword('correct horse')).split('$');
    assert.deepEqual([scheme, N, r, p], ['scrypt', '16384', '8', '5']);
    assert.equal(Buffer.from(salt!, 'base64').length, 16);
    assert.equal(Buffer.from(key!, 'base64').length, 32);
  });

  it('verifies hashes of other parameters, up to 128 MiB (above node\'s default scrypt memory limit)', async () => {
    const legacy = storedWith('correct horse', 16384, 8, 1);
    assert.ok(await verifyPassword('correct horse', legacy));
    const strongest = storedWith('correct horse', 2 ** 17, 8, 1);
    assert.ok(await verifyPassword('correct horse', strongest));
    assert.ok(!(await verifyPassword('wrong horse', strongest)));
  });

  it('wants a rehash of weaker hashes only', async () => {
    assert.equal(needsRehash(storedWith('pw', 16384, 8, 1)), true, 'the previous default');
    assert.equal(needsRehash(storedWith('pw', 8192, 8, 5)), true, 'less memory');
    assert.equal(needsRehash(await hashPassword('pw')), false, 'current');
    assert.equal(needsRehash(storedWith('pw', 2 ** 15, 8, 3)), false, 'stronger');
  });

  it('refuses, at once and without hashing, stored parameters that are malformed or would cost too much', async () => {
    const salt = randomBytes(16).toString('base64');
    const key = randomBytes(32).toString('base64');
    const refused = [
      `scrypt$16384$8$1000$${salt}$${key}`, // about a minute of work: the old code ran it
      `scrypt$1073741824$8$1$${salt}$${key}`, // 1 TiB of memory
      `scrypt$262144$8$1$${salt}$${key}`, // 256 MiB, above the bound
      `scrypt$16384$1024$1$${salt}$${key}`, // r blows the memory up too
      `scrypt$12000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$16384$8$0$${salt}$${key}`,
      `scrypt$16384$0$1$${salt}$${key}`,
      `scrypt$16384$8$1$${salt}$${randomBytes(4096).toString('base64')}`, // a 4 KiB key to derive
      `scrypt$16384$8$1$$${key}`,
      `scrypt$16384$8$1$${salt}$${key}$extra`,
    ];
    for (const stored of refused) {
      const started = Date.now();
      assert.equal(await verifyPassword('pw', stored), false, stored);
      assert.ok(Date.now() - started < 1000, `${stored} took ${Date.now() - started} ms`);
      assert.equal(needsRehash(stored), false, stored);
    }
  });
});

describe('SecretBox (AES-256-GCM under APP_KEY)', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('sk-live-very-secret');
    assert.ok(!sealed.includes('sk-live-very-secret'));
    assert.notEqual(sealed, box.seal('sk-live-very-secret'), 'a fresh IV each time');
    assert.equal(box.open(sealed), 'sk-live-very-secret');
  });

  it('refuses tampered ciphertext and another key', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    assert.throws(() => box.open(parts.join('.')));
    assert.throws(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed));
  });
});
