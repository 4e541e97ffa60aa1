import { strict as assert } from 'node:assert';
import { buildPrompt } from '../../src/ai/prompt';

const chatbot = { name: 'Fjord Bot', role: 'support assistant', persona: '', instructions: '', model: 'gpt-test' };
const systemFor = (language?: string | null) => buildPrompt({ chatbot, passages: [], history: [], question: 'Hello?', language }).request.system;

describe("AI prompt: the visitor's language", () => {
  it('names the language the widget reported and tells the model to answer in it', () => {
    assert.match(systemFor('fr-CA'), /The visitor's language is Canadian French, language tag fr-CA: reply in it, unless the visitor writes in another language, then in theirs\./);
    assert.match(systemFor('ja'), /The visitor's language is Japanese, language tag ja:/);
    assert.match(systemFor('ar'), /The visitor's language is Arabic, language tag ar:/);
    // Names are remembered per tag: asked again, the same answer.
    assert.match(systemFor('fr-CA'), /The visitor's language is Canadian French, language tag fr-CA:/);
  });

  it('falls back to "the visitor\'s language" without a known tag', () => {
    for (const language of [undefined, null, '', 'xx', 'not a tag', 'xx', 'not a tag']) {
      const system = systemFor(language);
      assert.match(system, /Reply in the visitor's language, in plain text, concisely\./, String(language));
      assert.doesNotMatch(system, /The visitor's language is/, String(language));
    }
  });
});
