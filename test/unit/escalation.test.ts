import { strict as assert } from 'node:assert';
import { asksForHuman, handoffLine } from '../../src/domain/conversations/escalation';

describe('AI escalation: the visitor asks for a person', () => {
  const asks = [
    'Can I talk to a human?',
    'I want to speak with a real person please',
    'connect me to an agent',
    'Please transfer me to customer service',
    'I need a live agent',
    'give me a representative!',
    'human',
    'Agent please',
  ];
  const doesNot = [
    'Is there a human-readable export?',
    'How do I add an agent to my workspace?',
    'I want an agent license for my team',
    'What does the operator field mean?',
    'Can you talk me through the setup?',
    'Who is the best person for billing questions?',
    'How do I talk to a human?',
  ];

  for (const text of asks) it(`escalates: ${text}`, () => assert.equal(asksForHuman(text), true));
  for (const text of doesNot) it(`answers itself: ${text}`, () => assert.equal(asksForHuman(text), false));

  it('names the first-response target in minutes', () => {
    assert.match(handoffLine(300), /within 5 minutes/);
    assert.match(handoffLine(45), /within 1 minute,/);
  });
});
