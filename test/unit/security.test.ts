import { strict as assert } from 'node:assert';
import { hashSecret, parseToken, randomSecret, secretMatches } from '../../src/security/tokens';
import { hashPassword, verifyPassword } from '../../src/security/passwords';
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
    assert.ok(!secretMatches(`${secret.slice(0, -1)}x`, stored));
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
