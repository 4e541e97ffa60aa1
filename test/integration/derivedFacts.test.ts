import { strict as assert } from 'node:assert';
import { Conversation, Visitor } from '../../src/models';
import { INTENTS } from '../../src/domain/assist/parseSummaryAnswer';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import { get, request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import { ask, newVisitor, widgetTenant } from '../support/widget';

// The active conversation's facts derived from what the visitor and the summary call say:
// `detected_language`, `timezone` and `intent` (docs/api.md "Inbox").

/** A widget chatbot with a provider key, and an agent token of its workspace to read the active conversation. */
async function tenant() {
  const t = await widgetTenant();
  return { ...t, token: await make.token(t.owner, 'agent') };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

async function active(t: Tenant, conversationId: string) {
  const reply = await get(`/api/agent/conversations/${conversationId}`, t.token);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.active;
}

/** A visitor message through the widget stream; answers the conversation id. */
async function say(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const reply = await ask(t, body);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.events[0]!.data.conversation_id;
}

const beat = (t: Tenant, body: Record<string, unknown>): Promise<Reply> =>
  request('POST', `${t.base}/heartbeat`, { body: { url: 'https://shop.example/', ...body }, headers: { 'X-Forwarded-For': freshIp() } });

describe('derived conversation facts: detected_language, timezone, intent', () => {
  beforeEach(() => fakeLlm().script({ reply: 'Noted.' }));
  afterEach(() => fakeLlm().reset());

  describe('detected_language', () => {
    it('is "" until the visitor wrote 20 letters, then the language of their recent messages, following a change of language', async () => {
      const t = await tenant();
      const visitor = newVisitor();
      const id = await say(t, { visitor_id: visitor, message: 'Salut !' });
      assert.equal((await active(t, id)).detected_language, '', 'too short to tell');

      await say(t, { visitor_id: visitor, conversation_id: id, message: 'Vous livrez au Canada ?' });
      assert.equal((await active(t, id)).detected_language, 'fr', '5 + 18 letters: the messages are read together');
      await say(t, { visitor_id: visitor, conversation_id: id, message: 'ok' });
      assert.equal((await active(t, id)).detected_language, 'fr', 'a short message keeps it');
      assert.equal((await Conversation.findOne({ where: { publicId: id } }))?.detectedLanguage, 'fr');

      for (const message of [
        'Entschuldigung, ich schreibe lieber auf Deutsch weiter, das ist einfacher für mich.',
        'Meine Bestellung ist noch nicht angekommen. Können Sie mir bitte sagen, wo sie gerade ist?',
        'Ich habe letzte Woche bezahlt und die Sendungsverfolgung zeigt seit Tagen keine Bewegung mehr.',
      ]) {
        await say(t, { visitor_id: visitor, conversation_id: id, message });
      }
      assert.equal((await active(t, id)).detected_language, 'de');
    });

    it('looks at the visitor only: the AI answering in English changes nothing', async () => {
      const t = await tenant();
      fakeLlm().script({ reply: 'We ship to Canada in four working days, and tracking is included with every order.' });
      const visitor = newVisitor();
      const id = await say(t, { visitor_id: visitor, message: '¿Hacen envíos a Canadá? Quisiera saber cuánto tarda.' });
      await say(t, { visitor_id: visitor, conversation_id: id, message: 'Gracias' });
      assert.equal((await active(t, id)).detected_language, 'es');
    });
  });

  describe('timezone', () => {
    it('the stream stores the widget\'s zone on the conversation; the active conversation shows it', async () => {
      const t = await tenant();
      const visitor = newVisitor();
      const id = await say(t, { visitor_id: visitor, message: 'Hello', timezone: 'America/Toronto' });
      assert.equal((await Conversation.findOne({ where: { publicId: id } }))?.timezone, 'America/Toronto');
      assert.equal((await active(t, id)).timezone, 'America/Toronto');
      // A message without a zone (or with an empty one) keeps the one known.
      await say(t, { visitor_id: visitor, conversation_id: id, message: 'Anyone there?', timezone: '' });
      assert.equal((await active(t, id)).timezone, 'America/Toronto');
    });

    it('heartbeats store it on the visitor, which a conversation without its own shows; "" when nobody reported one', async () => {
      const t = await tenant();
      const visitor = newVisitor();
      const conversation = await make.conversation(t.bot, { visitorKey: visitor, messages: [['visitor', 'Hi']] });
      assert.equal((await active(t, conversation.publicId)).timezone, '');

      assert.equal((await beat(t, { visitor_id: visitor, timezone: 'Asia/Tokyo' })).status, 200);
      const row = await Visitor.findOne({ where: { companyId: t.company.id, visitorKey: visitor } });
      assert.equal(row?.timezone, 'Asia/Tokyo');
      assert.equal((await active(t, conversation.publicId)).timezone, 'Asia/Tokyo');

      // A later beat's zone is written behind with the rest of presence.
      assert.equal((await beat(t, { visitor_id: visitor, timezone: 'Europe/Paris' })).status, 200);
      const moved = await eventually(
        () => Visitor.findOne({ where: { companyId: t.company.id, visitorKey: visitor } }),
        (read) => read?.timezone === 'Europe/Paris',
      );
      assert.equal(moved?.timezone, 'Europe/Paris');
    });

    it('a name the zone database does not know is ignored; one that is not a zone name at all is 422', async () => {
      const t = await tenant();
      const visitor = newVisitor();
      const first = await beat(t, { visitor_id: visitor, timezone: 'Asia/Tokyo' });
      assert.equal(first.status, 200);
      const before = (await Visitor.findOne({ where: { companyId: t.company.id, visitorKey: visitor } }))!;

      // Right form, unknown zone (a zone newer than the server's, or a made-up one): the beat counts, the zone does not.
      assert.equal((await beat(t, { visitor_id: visitor, timezone: 'Mars/Olympus_Mons' })).status, 200);
      const after = await eventually(
        () => Visitor.findOne({ where: { companyId: t.company.id, visitorKey: visitor } }),
        (read) => Boolean(read && read.lastSeenAt > before.lastSeenAt),
      );
      assert.ok(after && after.lastSeenAt > before.lastSeenAt, 'the second beat was written');
      assert.equal(after.timezone, 'Asia/Tokyo');

      for (const timezone of ['+01:00', 'Europe/Paris; DROP TABLE visitors', '../etc', 'x'.repeat(65), 42]) {
        const refused = await beat(t, { visitor_id: visitor, timezone });
        assert.equal(refused.status, 422, `${timezone}: ${JSON.stringify(refused.body)}`);
        assert.ok(refused.body.errors.timezone, JSON.stringify(refused.body));
        const streamed = await ask(t, { visitor_id: visitor, message: 'Hello', timezone });
        assert.equal(streamed.status, 422, `${timezone}: ${JSON.stringify(streamed.body)}`);
        assert.ok(streamed.body.errors.timezone, JSON.stringify(streamed.body));
      }
      assert.equal(await Conversation.count({ where: { chatbotId: t.bot.id, visitorKey: visitor } }), 0, 'a refused message stores nothing');

      const id = await say(t, { visitor_id: visitor, message: 'Hello', timezone: 'Mars/Olympus_Mons' });
      assert.equal((await Conversation.findOne({ where: { publicId: id } }))?.timezone, null);
    });
  });

  describe('intent', () => {
    const SUMMARY = 'Ann was charged twice for order 1042 and wants one charge refunded. Nothing is answered yet.';

    async function summarise(t: Tenant, conversation: Conversation): Promise<Reply> {
      const reply = await request('POST', `/api/agent/conversations/${conversation.publicId}/summary`, { token: t.token });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply;
    }

    it('is "" before the first summary, then named by the summary call itself: one model call, the line kept out of the summary', async () => {
      const t = await tenant();
      const conversation = await make.conversation(t.bot, { messages: [['visitor', 'You charged me twice for order 1042!']] });
      assert.equal((await active(t, conversation.publicId)).intent, '');

      fakeLlm().reset();
      fakeLlm().script({ reply: `${SUMMARY}\n\n**Intent:** Billing.` });
      const reply = await summarise(t, conversation);
      assert.equal(reply.body.summary, SUMMARY);
      assert.equal(fakeLlm().requests.length, 1, 'the intent costs no second call');
      const system: string = fakeLlm().requests[0]!.body.messages[0].content;
      assert.ok(system.includes(`"Intent: " and the one word from this list that best names what the visitor wants: ${INTENTS.join(', ')}.`), system);

      const shown = await active(t, conversation.publicId);
      assert.deepEqual([shown.summary, shown.intent], [SUMMARY, 'billing']);
      assert.equal((await Conversation.findByPk(conversation.id))?.intent, 'billing');
    });

    it('a later summary replaces it; one that names no intent keeps it; an intent off the list is `other`', async () => {
      const t = await tenant();
      const conversation = await make.conversation(t.bot, { messages: [['visitor', 'I want to cancel my subscription.']] });
      fakeLlm().script({ reply: `${SUMMARY}\nIntent: cancellation` });
      await summarise(t, conversation);
      assert.equal((await active(t, conversation.publicId)).intent, 'cancellation');

      fakeLlm().script({ reply: 'The visitor wants to cancel.' });
      await summarise(t, conversation);
      const shown = await active(t, conversation.publicId);
      assert.deepEqual([shown.summary, shown.intent], ['The visitor wants to cancel.', 'cancellation']);

      fakeLlm().script({ reply: `${SUMMARY}\nIntent: refund request` });
      await summarise(t, conversation);
      assert.equal((await active(t, conversation.publicId)).intent, 'other');
    });
  });
});
