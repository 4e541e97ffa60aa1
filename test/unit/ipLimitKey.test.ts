import { strict as assert } from 'node:assert';
import { ipLimitKey } from '../../src/http/rateLimit';

describe('per-IP rate limit key', () => {
  const cases: Array<[string | undefined, string]> = [
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['[2001:db8::1]', '2001:db8::/64'],
    ['::1', '::/64'],
    ['not an address', 'not an address'],
    [undefined, 'unknown'],
  ];
  for (const [ip, key] of cases) it(`keys ${ip} as ${key}`, () => assert.equal(ipLimitKey(ip), key));

  it('gives two addresses of one /64 the same key, and neighbouring /64s different ones', () => {
    assert.equal(ipLimitKey('2001:db8:a:b::1'), ipLimitKey('2001:db8:a:b:ffff::2'));
    assert.notEqual(ipLimitKey('2001:db8:a:b::1'), ipLimitKey('2001:db8:a:c::1'));
  });
});
