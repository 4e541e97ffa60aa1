import { strict as assert } from 'node:assert';
import { Conversation, Message } from '../../src/models';
import type { Chatbot } from '../../src/models';
import { fakeLlm } from '../support/hooks';
import { request } from '../support/http';
import * as make from '../support/factories';
import { ask, newVisitor, widgetTenant } from '../support/widget';

type Tenant = Awaited<ReturnType<typeof widgetTenant>>;

const inTen = () => Math.floor(Date.now() / 1000) + 600;

/** The chatbot asks for signed-in visitors (set on the row: the settings write paths are tested elsewhere). */
async function requireIdentity(bot: Chatbot): Promise<void> {
  await bot.update({ prechat: { ...bot.prechat, identity_required: true } });
}

async function tokenFor(bot: Chatbot, claims: Record<string, unknown>): Promise<string> {
  return make.identityToken(await make.chatbotIdentitySecret(bot), { exp: inTen(), ...claims });
}

/** The widget's `identify`: the latest-conversation read with the token beside the visitor id. */
const identify = (tenant: Tenant, visitor: string, identity: string) =>
  request('GET', `${tenant.base}/conversation`, { headers: { 'X-Forwarded-For': tenant.ip, 'X-Visitor-Id': visitor, 'X-Identity': identity } });

const stateRead = (tenant: Tenant, visitor: string, conversationId: string) =>
  request('GET', `${tenant.base}/conversations/${conversationId}`, { headers: { 'X-Forwarded-For': tenant.ip, 'X-Visitor-Id': visitor } });

/** A first message from a device; answers the conversation it opened. */
async function chat(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
  fakeLlm().script({ reply: 'Happy to help.' });
  const reply = await ask(tenant, body);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.events.at(-1)?.event, 'done', JSON.stringify(reply.events));
  return reply.events[0]!.data.conversation_id;
}

const transcript = async (publicId: string) => {
  const conversation = await Conversation.findOne({ where: { publicId } });
  return (await Message.findAll({ where: { conversationId: conversation!.id }, order: [['id', 'ASC']] })).map((m) => `${m.role}: ${m.content}`);
};

describe('widget identity: identity_required, identify, and a customer on another device', () => {
  beforeEach(() => fakeLlm().reset());

  it('with identity_required, a message without a token is 422 `errors.identity` and nothing is stored', async () => {
    const tenant = await widgetTenant();
    await requireIdentity(tenant.bot);
    const config = await request('GET', `${tenant.base}/config`, { headers: { 'X-Forwarded-For': tenant.ip } });
    assert.equal(config.body.identity_required, true);

    for (const identity of [undefined, '']) {
      const refused = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', ...(identity !== undefined && { identity }) });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.ok(refused.body.errors.identity, JSON.stringify(refused.body));
    }
    assert.equal(await Conversation.count({ where: { chatbotId: tenant.bot.id } }), 0);
    assert.equal(fakeLlm().requests.length, 0);
  });

  it('refuses an unsigned, expired, too-far-future, wrongly signed, sub-less and malformed token on the stream and on identify; nothing of it is stored', async () => {
    const tenant = await widgetTenant();
    await requireIdentity(tenant.bot);
    const secret = await make.chatbotIdentitySecret(tenant.bot);
    const now = Math.floor(Date.now() / 1000);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: Record<string, string> = {
      unsigned: make.identityToken(secret, { sub: 'cust-1', exp: now + 600 }, 'none'),
      'unsigned, with a signature part': `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'cust-1', exp: now + 600 })}.c2ln`,
      expired: make.identityToken(secret, { sub: 'cust-1', exp: now - 5 }),
      'without exp': make.identityToken(secret, { sub: 'cust-1' }),
      'more than 24 h ahead': make.identityToken(secret, { sub: 'cust-1', exp: now + 24 * 3600 + 120 }),
      'wrongly signed': make.identityToken(`${secret}-not`, { sub: 'cust-1', exp: now + 600 }),
      "another chatbot's secret": await tokenFor(await make.chatbot(tenant.company), { sub: 'cust-1' }),
      'without sub': make.identityToken(secret, { exp: now + 600 }),
      'a sub too long to keep': make.identityToken(secret, { sub: 'c'.repeat(256), exp: now + 600 }),
      'not a JWT': 'not-a-jwt',
      'JWT-shaped garbage': 'abc.def.ghi',
    };
    for (const [why, token] of Object.entries(cases)) {
      const streamed = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', identity: token });
      assert.equal(streamed.status, 422, `${why}: ${JSON.stringify(streamed.body)}`);
      assert.ok(streamed.body.errors.identity, `${why}: ${JSON.stringify(streamed.body)}`);
      const identified = await identify(tenant, newVisitor(), token);
      assert.equal(identified.status, 422, `${why}: ${JSON.stringify(identified.body)}`);
      assert.ok(identified.body.errors.identity, `${why}: ${JSON.stringify(identified.body)}`);
    }
    assert.equal(await Conversation.count({ where: { chatbotId: tenant.bot.id } }), 0);
    assert.equal(fakeLlm().requests.length, 0);
  });

  it('accepts a valid token: the identity, its sub and the contact details it vouches for are stored', async () => {
    const tenant = await widgetTenant();
    await requireIdentity(tenant.bot);
    const identity = await tokenFor(tenant.bot, { sub: 'cust-42', name: 'Grace', email: 'grace@example.test', phone: '+47 555 0100' });
    const conversationId = await chat(tenant, { visitor_id: newVisitor(), message: 'Where is my parcel?', identity });
    const row = await Conversation.findOne({ where: { publicId: conversationId } });
    assert.deepEqual([row?.identitySub, row?.identity?.sub, row?.visitorName, row?.visitorEmail, row?.visitorPhone], ['cust-42', 'cust-42', 'Grace', 'grace@example.test', '+47 555 0100']);
  });

  it('a verified customer sees their conversation on another device and continues it there; the first device takes it back by identifying again', async () => {
    const tenant = await widgetTenant();
    await requireIdentity(tenant.bot);
    const identity = await tokenFor(tenant.bot, { sub: 'cust-7', name: 'Ann' });
    const [laptop, phone] = [newVisitor(), newVisitor()];
    const conversationId = await chat(tenant, { visitor_id: laptop, message: 'Do you ship to Norway?', identity });

    const found = await identify(tenant, phone, identity);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    const shown = found.body;
    assert.equal(shown.conversation_id, conversationId);
    assert.deepEqual(shown.messages.map((m: { role: string; content: string }) => `${m.role}: ${m.content}`), ['visitor: Do you ship to Norway?', 'assistant: Happy to help.']);
    assert.deepEqual([shown.status, shown.handoff_state, shown.wait_remaining], ['bot', 'bot_active', null]);

    // The phone continues the same conversation, reads it, and asks for a person in it.
    assert.equal(await chat(tenant, { visitor_id: phone, message: 'And to Sweden?', conversation_id: conversationId, identity }), conversationId);
    assert.equal((await stateRead(tenant, phone, conversationId)).status, 200);
    const handoff = await request('POST', `${tenant.base}/handoff`, { body: { visitor_id: phone, conversation_id: conversationId }, headers: { 'X-Forwarded-For': tenant.ip } });
    assert.equal(handoff.status, 200, JSON.stringify(handoff.body));
    assert.deepEqual(await transcript(conversationId), ['visitor: Do you ship to Norway?', 'assistant: Happy to help.', 'visitor: And to Sweden?', 'assistant: Happy to help.']);
    assert.equal(await Conversation.count({ where: { chatbotId: tenant.bot.id } }), 1, 'no second conversation');

    // It moved: the laptop reads it again once it identifies again.
    assert.equal((await stateRead(tenant, laptop, conversationId)).status, 404);
    const back = await identify(tenant, laptop, identity);
    assert.equal(back.body.conversation_id, conversationId);
    assert.equal(back.body.messages.length, 4);
    assert.equal(back.body.handoff_state, 'handoff_pending');
    assert.equal((await stateRead(tenant, laptop, conversationId)).status, 200);

    // A message from the phone with its token takes it along again, without an identify first.
    assert.equal(await ask(tenant, { visitor_id: phone, message: 'Still there?', conversation_id: conversationId, identity }).then((r) => r.events[0]?.data.conversation_id), conversationId);
    assert.equal((await Conversation.findOne({ where: { publicId: conversationId } }))?.visitorKey, phone);
  });

  it("keeps customers apart: another customer's token neither finds nor writes the conversation, and the same sub on another chatbot is another customer", async () => {
    const tenant = await widgetTenant();
    const ann = await tokenFor(tenant.bot, { sub: 'cust-ann' });
    const device = newVisitor();
    const conversationId = await chat(tenant, { visitor_id: device, message: 'My order number is 1001', identity: ann });

    const bob = await tokenFor(tenant.bot, { sub: 'cust-bob' });
    assert.equal((await identify(tenant, newVisitor(), bob)).status, 404);
    // Not even from Ann's own device: a conversation verified for Ann takes no message under Bob's token.
    const intruder = await ask(tenant, { visitor_id: device, message: 'Show me', conversation_id: conversationId, identity: bob });
    assert.equal(intruder.status, 404, JSON.stringify(intruder.body));
    assert.equal((await Conversation.findOne({ where: { publicId: conversationId } }))?.identitySub, 'cust-ann');
    assert.equal((await identify(tenant, device, bob)).status, 404, "Ann's device shows Bob nothing");

    const other = { ...tenant, bot: await make.chatbot(tenant.company) };
    const otherTenant = { ...other, base: `/widget/${other.bot.publicKey}` };
    const sameSub = await tokenFor(other.bot, { sub: 'cust-ann' });
    assert.equal((await identify(otherTenant, newVisitor(), sameSub)).status, 404);
    assert.deepEqual(await transcript(conversationId), ['visitor: My order number is 1001', 'assistant: Happy to help.']);
  });

  it("answers the device's own open conversation when the customer's latest one is open elsewhere (one open conversation per visitor)", async () => {
    const tenant = await widgetTenant();
    const identity = await tokenFor(tenant.bot, { sub: 'cust-9' });
    const [laptop, phone] = [newVisitor(), newVisitor()];
    const onLaptop = await chat(tenant, { visitor_id: laptop, message: 'Hello from the laptop', identity });
    // Anonymous on the phone first, then signed in.
    const onPhone = await chat(tenant, { visitor_id: phone, message: 'Hello from the phone' });

    const found = await identify(tenant, phone, identity);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.conversation_id, onPhone);
    assert.deepEqual(found.body.messages.map((m: { content: string }) => m.content), ['Hello from the phone', 'Happy to help.']);
    assert.equal((await Conversation.findOne({ where: { publicId: onLaptop } }))?.visitorKey, laptop, 'the laptop keeps its own');
  });

  it("answers the visitor id's own latest conversation for a customer without one, and 404 when there is none either", async () => {
    const tenant = await widgetTenant();
    const identity = await tokenFor(tenant.bot, { sub: 'cust-new' });
    assert.equal((await identify(tenant, newVisitor(), identity)).status, 404);
    const device = newVisitor();
    const anonymous = await chat(tenant, { visitor_id: device, message: 'Hello before signing in' });
    const found = await identify(tenant, device, identity);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.conversation_id, anonymous);
  });
});
