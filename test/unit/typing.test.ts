import { strict as assert } from 'node:assert';
import type { ConversationActor } from '../../src/actors/conversation/actor';
import { TypingState } from '../../src/actors/conversation/typing';
import { TypingThrottle } from '../../src/realtime/typing';

describe('typing', () => {
  describe('TypingThrottle', () => {
    it('passes a start once per interval and a stop once after a start, per conversation', () => {
      let now = 0;
      const throttle = new TypingThrottle(2_000, () => now);
      const passes = (typing: boolean, conversation = 'a') => throttle.admits(conversation, typing);
      assert.equal(passes(true), true);
      now = 500;
      assert.equal(passes(true), false);
      assert.equal(passes(true, 'b'), true, 'another conversation has its own interval');
      assert.equal(passes(false), true);
      assert.equal(passes(false), false, 'a stop after a stop');
      assert.equal(passes(true), false, 'a start flipped back within the interval');
      now = 2_500;
      assert.equal(passes(true), true);
    });
  });

  describe('TypingState (the conversation actor keeps it)', () => {
    const conversation = { publicId: '00000000-0000-4000-8000-000000000001', chatbotId: 7, companyId: 3, seq: '4', blocked: false, status: 'bot', visitorName: 'Ada', visitorEmail: null, visitorKey: 'v-1' };
    function setup(tracking = true) {
      const sent: unknown[] = [];
      const actor = {
        record: { row: conversation },
        settings: async () => ({ behavior_tracking: tracking }),
        deps: { realtime: { emit: (_channel: string, _event: string, data: unknown) => void sent.push(data) } },
      } as unknown as ConversationActor;
      return { sent, state: new TypingState(actor, 100) };
    }
    const visitor = (typing: boolean, preview?: string) => ({ who: 'visitor' as const, chatbotId: 7, typing, ...(preview && { preview }) });
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    };

    it('sends changes only, and typing: false once no repeat came for the lapse time', async () => {
      const { sent, state } = setup();
      await state.signal(visitor(true, 'Hi'));
      await state.signal(visitor(true, 'Hi'));
      await state.signal(visitor(true, 'Hi th'));
      const base = { conversation_id: conversation.publicId, who: 'visitor', name: 'Ada' };
      assert.deepEqual(sent, [
        { ...base, typing: true, preview: 'Hi' },
        { ...base, typing: true, preview: 'Hi th' },
      ]);
      const started = Date.now();
      await until(() => sent.length === 3);
      assert.ok(Date.now() - started >= 90, 'lapsed before the lapse time');
      assert.deepEqual(sent[2], { ...base, typing: false });
    });

    it("drops the preview without behavior_tracking, a signal for another chatbot or workspace, and ends every state when the actor goes", async () => {
      const { sent, state } = setup(false);
      await state.signal({ who: 'visitor', chatbotId: 8, typing: true });
      await state.signal({ who: 'agent', userId: 1, companyId: 4, name: 'Eve', typing: true });
      assert.deepEqual(sent, []);
      await state.signal(visitor(true, 'secret'));
      await state.signal({ who: 'agent', userId: 2, companyId: 3, name: 'Bob', typing: true });
      state.endAll();
      assert.deepEqual(
        sent.map((data) => data as { who: string; typing: boolean; preview?: string }).map(({ who, typing, preview }) => [who, typing, preview]),
        [
          ['visitor', true, undefined],
          ['agent', true, undefined],
          ['visitor', false, undefined],
          ['agent', false, undefined],
        ],
      );
    });
  });
});
