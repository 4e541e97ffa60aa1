import { strict as assert } from 'node:assert';
import { randomBytes, scryptSync } from 'node:crypto';
import type { User } from '../../src/models';
import { verifyPassword } from '../../src/security/passwords';
import { get } from '../support/http';
import { portalLogin } from '../support/portal';
import * as factories from '../support/factories';

const PASSWORD = 'an-older-password-1';
const CURRENT_PARAMS = /^scrypt\$16384\$8\$5\$/;

/** A hash exactly as earlier versions stored it: scrypt N=16384, r=8, p=1. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function withLegacyHash(user: User): Promise<string> {
  const stored = legacyHash(PASSWORD);
  await user.update({ passwordHash: stored });
  return stored;
}

describe('passwords stored with older scrypt parameters are upgraded at sign-in', () => {
  it('a successful sign-in replaces the hash with one at the current parameters, and the password still works', async () => {
    const { owner } = await factories.workspace({ portal: true });
    const legacy = await withLegacyHash(owner);

    const first = await portalLogin(owner.email, PASSWORD);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await get('/api/portal/me', first.body.token)).status, 200);
    await owner.reload();
    assert.notEqual(owner.passwordHash, legacy);
    assert.match(owner.passwordHash, CURRENT_PARAMS);
    assert.equal(await verifyPassword(PASSWORD, owner.passwordHash), true);

    const upgraded = owner.passwordHash;
    assert.equal((await portalLogin(owner.email, PASSWORD)).status, 200, 'signs in with the upgraded hash');
    await owner.reload();
    assert.equal(owner.passwordHash, upgraded, 'a current hash is not made again');
  });

  it('a failed sign-in leaves the old hash alone', async () => {
    const { owner } = await factories.workspace({ portal: true });
    const legacy = await withLegacyHash(owner);
    assert.equal((await portalLogin(owner.email, `${PASSWORD}x`)).status, 401);
    await owner.reload();
    assert.equal(owner.passwordHash, legacy);
  });

  it('a proven password is upgraded even when the surface then refuses the user (a viewer at the portal)', async () => {
    const { company } = await factories.workspace({ portal: true });
    const viewer = await factories.user(company, 'viewer');
    await withLegacyHash(viewer);
    assert.equal((await portalLogin(viewer.email, PASSWORD)).status, 403);
    await viewer.reload();
    assert.match(viewer.passwordHash, CURRENT_PARAMS);
    assert.equal(await verifyPassword(PASSWORD, viewer.passwordHash), true);
  });
});
