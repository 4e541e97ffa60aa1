import { strict as assert } from 'node:assert';
import { asksForRecommendations, recommendsFor } from '../../src/domain/integrations/recommendations';
import { contactIn } from '../../src/domain/leads/capturedContact';

describe('chatbot flag rules', () => {
  it('contactIn finds an email address and a phone number, and takes no date, amount or order number for one', () => {
    assert.deepEqual(contactIn('Mail ann.example+shop@mail.example.co.uk please'), { email: 'ann.example+shop@mail.example.co.uk', phone: null });
    for (const phone of ['+44 20 7946 0958', '(555) 010-9999', '555.010.9999', '+31612345678', '0612 345 678']) {
      assert.deepEqual(contactIn(`Call me on ${phone}.`), { email: null, phone }, phone);
    }
    for (const text of ['Order #1001 of 25.00 EUR', 'Placed on 2025-03-04 10:00', 'on 04/03/2025', 'ref 12345678', 'a 20-digit code 12345678901234567890']) {
      assert.deepEqual(contactIn(text), { email: null, phone: null }, text);
    }
  });

  it('recommend_mode: off never, auto always, on_request only when asked in so many words', () => {
    assert.equal(recommendsFor('off', 'What do you recommend?'), false);
    assert.equal(recommendsFor('auto', 'Do you sell shoes?'), true);
    assert.equal(recommendsFor('on_request', 'Do you sell shoes?'), false);
    for (const question of ['What do you recommend?', 'Any recommendations for a gift?', 'Can you suggest a jacket?', 'Which one should I buy?', 'What would you advise for hiking?']) {
      assert.ok(asksForRecommendations(question), question);
    }
  });
});
