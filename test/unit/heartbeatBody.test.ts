import { strict as assert } from 'node:assert';
import { weakEtag } from '../../src/http/hotAnswer';
import { heartbeatBody, heartbeatBodyAtOnce } from '../../src/surfaces/widget/heartbeatBody';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const expressWeakEtag = (require('express/lib/utils') as { wetag: (body: string, encoding: string) => string }).wetag;

const UUID = '0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90';
const base = { visitor_id: 'visitor-3f9a1c', url: 'https://shop.example/shoes?size=42#top' };

/** Bodies the widget sends and bodies it never should: the hand check must agree with zod on each. */
const BODIES: unknown[] = [
  base,
  { ...base, title: 'Shoes', referrer: '', conversation_id: null, timezone: 'Europe/Paris' },
  { ...base, title: null, referrer: null, conversation_id: UUID, timezone: '' },
  { ...base, conversation_id: UUID.toUpperCase() },
  { ...base, url: 'HTTP://SHOP.EXAMPLE:8080/a%20b/c?q=1' },
  { ...base, url: 'http://127.0.0.1/' },
  { ...base, url: 'http://[::1]:3000/x' },
  { ...base, url: 'https://xn--bcher-kva.example/%E2%82%AC' },
  { ...base, extra: 'dropped', nested: { a: 1 } },
  { ...base, timezone: 'Mars/Olympus_Mons' },
  { ...base, timezone: 'UTC' },
  // Everything below is refused by zod or changed by it (trimmed, stripped): the hand check must step aside.
  { ...base, url: ' https://shop.example/ ' },
  { ...base, url: 'https://shop.example/\u00a0' },
  { ...base, url: 'https://shop.example/a\tb' },
  { ...base, url: 'https://shop.example/ä' },
  { ...base, url: 'https:/shop.example/' },
  { ...base, url: 'http:shop.example' },
  { ...base, url: 'ftp://shop.example/' },
  { ...base, url: 'https://' },
  { ...base, url: 'https://999.1.1.1/' },
  { ...base, url: 'https://shop.example:99999/' },
  { ...base, url: `https://shop.example/${'a'.repeat(2048)}` },
  { ...base, url: 'not a url' },
  { ...base, url: 42 },
  { ...base, visitor_id: '   ' },
  { ...base, visitor_id: 'v'.repeat(101) },
  { ...base, visitor_id: 7 },
  { ...base, title: 't'.repeat(501) },
  { ...base, title: 5 },
  { ...base, referrer: 'r'.repeat(2049) },
  { ...base, conversation_id: 'not-a-uuid' },
  { ...base, conversation_id: '' },
  { ...base, timezone: '+01:00' },
  { ...base, timezone: null },
  { ...base, timezone: 'x'.repeat(65) },
  { url: base.url },
  { visitor_id: base.visitor_id },
  {},
  [],
  [base],
  null,
  'a string',
];

describe('heartbeat body: the hand check agrees with zod', () => {
  it('accepts only what zod accepts, with the same values', () => {
    let accepted = 0;
    for (const body of BODIES) {
      const quick = heartbeatBodyAtOnce(body);
      const zod = heartbeatBody.safeParse(body ?? {});
      if (quick === undefined) continue;
      accepted++;
      assert.ok(zod.success, `accepted by hand, refused by zod: ${JSON.stringify(body)}`);
      for (const field of ['visitor_id', 'url', 'title', 'referrer', 'conversation_id', 'timezone'] as const) {
        assert.equal(quick[field], zod.data[field], `${field} of ${JSON.stringify(body)}`);
      }
    }
    // The bodies the widget really sends take the quick path (else it would save nothing).
    assert.ok(accepted >= 10, `only ${accepted} bodies took the quick path`);
    assert.ok(heartbeatBodyAtOnce(base));
    assert.ok(heartbeatBodyAtOnce(BODIES[1]));
  });

  it('a time zone the server does not know is dropped, as zod drops it', () => {
    assert.equal(heartbeatBodyAtOnce({ ...base, timezone: 'Mars/Olympus_Mons' })?.timezone, undefined);
    assert.equal(heartbeatBodyAtOnce({ ...base, timezone: 'Europe/Paris' })?.timezone, 'Europe/Paris');
  });
});

describe("hot answers: express's weak ETag without its Buffer and Hash", () => {
  it('is the same tag for every body', () => {
    for (const json of ['', '{}', '{"poll_seconds":15,"conversation_id":null,"messages":[]}', JSON.stringify({ text: 'héllo € 😀', n: 'x'.repeat(5000) })]) {
      assert.equal(weakEtag(json, Buffer.byteLength(json)), expressWeakEtag(json, 'utf8'), json.slice(0, 40));
    }
  });
});
