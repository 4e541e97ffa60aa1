import { strict as assert } from 'node:assert';
import { deltaJson } from '../../src/http/sse';

/** Every string here must come out exactly as JSON.stringify writes it inside `{ delta }`. */
const AWKWARD = [
  '',
  'plain words ',
  'say "hi"',
  '"',
  'back\\slash \\" \\\\',
  ...Array.from({ length: 0x20 }, (_, code) => `control ${String.fromCharCode(code)} here`),
  '\u007f delete',
  'line\u2028separator and paragraph\u2029separator',
  'lone high \ud83d end',
  'lone low \ude00 end',
  '\ud83d',
  '\ude00',
  'reversed pair \ude00\ud83d',
  'emoji 😀 and family 👨‍👩‍👧 and flag 🇳🇴',
  'two highs \ud83d\ud83d then low \ude00',
  'combining é and Å',
  '</script><!-- -->',
  'tab\tnewline\ncarriage\r',
  'null \u0000 byte',
  'æøå ñ 中文 日本語 العربية',
  '\ufeff BOM and \ufffd replacement',
];

/** Deterministic pseudo-random strings over every UTF-16 code unit, weighted to the escaped ranges. */
function* fuzzed(count: number): Generator<string> {
  let seed = 0x2545f491;
  const next = () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) >>> 8);
  for (let i = 0; i < count; i++) {
    let text = '';
    for (let length = next() % 12; length > 0; length--) {
      const pick = next() % 6;
      if (pick === 0) text += String.fromCharCode(next() % 0x20);
      else if (pick === 1) text += String.fromCharCode(0xd800 + (next() % 0x800));
      else if (pick === 2) text += '"\\'[next() % 2];
      else if (pick === 3) text += String.fromCharCode(next() % 0x10000);
      else text += String.fromCharCode(0x20 + (next() % 0x60));
    }
    yield text;
  }
}

describe('deltaJson: a delta event\'s data, byte for byte what JSON.stringify writes', () => {
  it('for awkward strings: quotes, backslashes, every control character, U+2028/2029, lone and paired surrogates, emoji', () => {
    for (const text of AWKWARD) assert.equal(deltaJson({ delta: text }), JSON.stringify({ delta: text }), JSON.stringify(text));
  });

  it('for 20,000 pseudo-random strings over every code unit', () => {
    for (const text of fuzzed(20_000)) assert.equal(deltaJson({ delta: text }), JSON.stringify({ delta: text }), JSON.stringify(text));
  });

  it('for anything that is not a plain object with exactly one enumerable string field `delta`', () => {
    class Delta {
      constructor(readonly delta: string) {}
    }
    const hidden = {};
    Object.defineProperty(hidden, 'delta', { value: 'not enumerable', enumerable: false });
    const shapes: unknown[] = [
      null,
      undefined,
      'text',
      42,
      ['delta'],
      {},
      { delta: 5 },
      { delta: null },
      { delta: 'a', extra: 1 },
      { extra: 1, delta: 'a' },
      { delta: 'a', toJSON: () => 'other' },
      new Delta('from a class'),
      Object.assign(Object.create(null), { delta: 'no prototype' }),
      Object.create({ delta: 'inherited' }),
      hidden,
    ];
    for (const data of shapes) assert.equal(deltaJson(data), JSON.stringify(data), String(JSON.stringify(data)));
  });
});
