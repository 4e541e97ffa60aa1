import { strict as assert } from 'node:assert';
import express, { type Request } from 'express';
import { IpLimitKeys } from '../../src/http/ipLimitKeys';
import { ipLimitKey } from '../../src/http/rateLimit';
import { trustProxySetting } from '../../src/http/trustProxy';

/** A request as express sees it (its `req.ip` getter reads the app's `trust proxy fn`), from a socket address and an X-Forwarded-For. */
function requestOf(app: express.Express, socket: string, forwarded: string | undefined): Request {
  const req = Object.create(app.request) as Request;
  Object.defineProperty(req, 'socket', { value: { remoteAddress: socket } });
  Object.defineProperty(req, 'headers', { value: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } });
  return req;
}

describe('per-IP limit keys of the hot routes (src/http/ipLimitKeys.ts)', () => {
  const settings = ['loopback', 'false', 'true', '1', '2', '10.0.0.0/8', 'uniquelocal', 'loopback, 203.0.113.0/24'];
  const sockets = ['127.0.0.1', '::ffff:127.0.0.1', '::1', '203.0.113.9', '10.1.2.3', '198.51.100.20'];
  const headers = [
    undefined,
    '',
    '198.51.100.7',
    '0.0.0.0',
    '255.255.255.255',
    '10.9.8.7',
    '010.0.0.1',
    '1.2.3',
    '256.1.1.1',
    ' 198.51.100.7',
    '198.51.100.7 ',
    '198.51.100.7, 10.0.0.1',
    '10.0.0.1,198.51.100.7',
    '::ffff:198.51.100.7',
    '2001:db8:1:2::9',
    'junk',
    ',',
  ];

  for (const setting of settings) {
    it(`gives req.ip's key for every socket and X-Forwarded-For, trust proxy = ${setting}, seen or not`, () => {
      const app = express();
      app.set('trust proxy', trustProxySetting(setting));
      const keys = new IpLimitKeys();
      for (let pass = 0; pass < 2; pass++) {
        for (const socket of sockets) {
          for (const forwarded of headers) {
            const req = requestOf(app, socket, forwarded);
            assert.equal(keys.of(req), `ip:${ipLimitKey(req.ip)}`, `socket ${socket}, X-Forwarded-For ${JSON.stringify(forwarded)}, pass ${pass}`);
          }
        }
      }
    });
  }

  it('works out a new client behind a trusted proxy (one IPv4 address forwarded) without req.ip, once per proxy address', () => {
    const app = express();
    app.set('trust proxy', trustProxySetting('loopback'));
    let asked = 0;
    let trustAsked = 0;
    const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    const keys = new IpLimitKeys(() => (address, hop) => (trustAsked++, trust(address, hop)));
    const ipOf = (req: Request) => (asked++, req.ip);
    for (let i = 0; i < 50; i++) assert.equal(keys.of(requestOf(app, '127.0.0.1', `198.51.100.${i}`), ipOf), `ip:198.51.100.${i}`);
    assert.equal(keys.of(requestOf(app, '203.0.113.9', '198.51.100.1'), ipOf), 'ip:203.0.113.9'); // not a trusted proxy: its own address
    assert.equal(asked, 0);
    assert.equal(trustAsked, 2);
    // Anything else still asks req.ip.
    assert.equal(keys.of(requestOf(app, '127.0.0.1', '198.51.100.7, 10.0.0.1'), ipOf), 'ip:10.0.0.1');
    assert.equal(asked, 1);
  });
});
