import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { FollowUpLinks, LINK_LIFETIME_SECONDS } from '../../src/domain/followup/link';

describe('offline follow-up links', () => {
  const links = new FollowUpLinks(randomBytes(32));
  const conversation = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';
  const now = new Date('2026-03-02T10:00:00Z');

  it('verifies what it signed, until it expires', () => {
    const token = links.sign(conversation, 42, now);
    assert.deepEqual(links.verify(token, now), { ok: true, claims: { conversationId: conversation, followupId: 42, expiresAt: now.getTime() / 1000 + LINK_LIFETIME_SECONDS } });
    assert.deepEqual(links.verify(token, new Date(now.getTime() + LINK_LIFETIME_SECONDS * 1000)), { ok: false, reason: 'expired' });
  });

  it('refuses a link whose payload, signature or key differs', () => {
    const [version, payload, mac] = links.sign(conversation, 42, now).split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify({ c: conversation, f: 43, e: now.getTime() / 1000 + 60 })).toString('base64url');
    assert.deepEqual(links.verify(`${version}.${other}.${mac}`, now), { ok: false, reason: 'signature' });
    assert.deepEqual(links.verify(`${version}.${payload}.${mac.slice(0, -1)}`, now), { ok: false, reason: 'signature' });
    assert.deepEqual(new FollowUpLinks(randomBytes(32)).verify(`${version}.${payload}.${mac}`, now), { ok: false, reason: 'signature' });
    assert.deepEqual(links.verify(`v2.${payload}.${mac}`, now), { ok: false, reason: 'malformed' });
    assert.deepEqual(links.verify('not-a-link', now), { ok: false, reason: 'malformed' });
  });
});
