import { strict as assert } from 'node:assert';
import { isPublicAddress } from '../../src/net/outboundAddress';

describe('outbound address policy', () => {
  const refused = [
    '127.0.0.1', '10.0.0.5', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '::1', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1',
    '255.255.255.255', '::', '64:ff9b::7f00:1', '2002:7f00:1::1', 'not an ip', '',
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

  for (const ip of refused) it(`refuses ${ip || '(empty)'}`, () => assert.equal(isPublicAddress(ip), false));
  for (const ip of allowed) it(`allows ${ip}`, () => assert.equal(isPublicAddress(ip), true));
});
