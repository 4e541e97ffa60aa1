import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { parseChannel } from '../../src/realtime/channels';
import { ChannelSigner } from '../../src/realtime/signature';

describe('realtime channel names and signatures', () => {
  it('parses the three private kinds in their one canonical spelling only', () => {
    const uuid = '0b7c2a8e-8d7f-4a51-9a3c-6f1e2d3c4b5a';
    assert.deepEqual(parseChannel('private-company.12'), { kind: 'company', name: 'private-company.12', companyId: 12 });
    assert.deepEqual(parseChannel('private-user.2147483647'), { kind: 'user', name: 'private-user.2147483647', userId: 2147483647 });
    assert.deepEqual(parseChannel(`private-conversation.${uuid}`), { kind: 'conversation', name: `private-conversation.${uuid}`, conversationId: uuid });
    for (const name of ['private-company.012', 'private-company.0', 'private-user.2147483648', 'private-company.1 ', `private-conversation.${uuid.toUpperCase()}`, 'private-team.1', 'presence-company.1', '']) {
      assert.equal(parseChannel(name), undefined, name);
    }
  });

  it('signs under a key id that changes with APP_KEY, and verifies only the exact socket, channel and digest', () => {
    const signer = new ChannelSigner(randomBytes(32));
    const rotated = new ChannelSigner(randomBytes(32));
    assert.match(signer.keyId, /^[0-9a-f]{16}$/);
    assert.notEqual(signer.keyId, rotated.keyId);
    const auth = signer.sign('sock-1', 'private-company.1');
    assert.match(auth, new RegExp(`^${signer.keyId}:[0-9a-f]{64}$`));
    assert.equal(signer.verify('sock-1', 'private-company.1', auth), true);
    assert.equal(signer.verify('sock-2', 'private-company.1', auth), false);
    assert.equal(signer.verify('sock-1', 'private-company.2', auth), false);
    assert.equal(rotated.verify('sock-1', 'private-company.1', auth), false);
    for (const bad of ['', ':', auth.slice(0, -1), `${auth}0`, auth.replace(/.$/, 'g'), auth.split(':')[1]!]) {
      assert.equal(signer.verify('sock-1', 'private-company.1', bad), false, bad);
    }
  });
});
