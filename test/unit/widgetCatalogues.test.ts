import { strict as assert } from 'node:assert';
import { DEFAULT_BRANDING, DEFAULT_WELCOME_MESSAGE } from '../../src/domain/chatbots/branding';
import { catalogueCodes, WIDGET_SOURCE, widgetWords } from '../support/widgetWords';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('widget language catalogues', () => {
  const en = widgetWords('en') as Record<string, string>;
  const codes = catalogueCodes();

  it('has at least Spanish, French, German, Portuguese, Dutch, Japanese, Chinese and Arabic, and widget.js knows every one', () => {
    for (const code of ['es', 'fr', 'de', 'pt', 'nl', 'ja', 'zh', 'ar']) assert.ok(codes.includes(code), `no catalogue for ${code}`);
    const listed = /var CATALOGUES = (\[[^\]]*\]);/.exec(WIDGET_SOURCE)?.[1];
    assert.ok(listed, 'widget.js lists its catalogues');
    assert.deepEqual((JSON.parse(listed.replace(/'/g, '"')) as string[]).sort(), codes, 'the files and the list in widget.js agree');
  });

  for (const code of codes) {
    it(`${code}: every key of the English one, nothing else, each a text with the same {placeholders}`, () => {
      const words = widgetWords(code);
      assert.deepEqual(Object.keys(words).sort(), Object.keys(en).sort());
      for (const [key, text] of Object.entries(words)) {
        assert.equal(typeof text, 'string', `${code}.${key}`);
        assert.ok((text as string).trim(), `${code}.${key} is empty`);
        assert.deepEqual(placeholders(text as string), placeholders(en[key]!), `${code}.${key} placeholders`);
      }
    });
  }

  // The widget shows these server defaults in the visitor's language only while they match exactly.
  it("knows the server's default texts as its own: launcher, title, subtitle and welcome", () => {
    assert.equal(en.launcher, DEFAULT_BRANDING.launcher_text);
    assert.equal(en.title, DEFAULT_BRANDING.title);
    assert.equal(en.subtitle, DEFAULT_BRANDING.subtitle);
    assert.equal(en.welcome, DEFAULT_WELCOME_MESSAGE);
  });
});
