import { strict as assert } from 'node:assert';
import { Conversation, Message, UsageRecord } from '../../src/models';
import { fakeLlm, server } from '../support/hooks';
import { request } from '../support/http';
import * as make from '../support/factories';

async function tenant(plan: 'free' | 'pro' = 'pro') {
  const base = await make.v1Tenant(plan);
  await make.providerKey(base.company, base.bot.provider);
  return { ...base, path: `/api/v1/chatbots/${base.bot.publicKey}/messages` };
}

describe('REST v1: send message', () => {
  beforeEach(() => fakeLlm().reset());

  it('answers with the whole reply in one JSON response, through the same conversation actor', async () => {
    const t = await tenant();
    fakeLlm().script({ reply: 'We open at nine.', usage: { in: 40, out: 6 } });
    const reply = await request('POST', t.path, { token: t.token, body: { message: 'When do you open?', visitor_id: 'crm-7', meta: { source: 'crm' } } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body).sort(), ['conversation_id', 'reply', 'status']);
    assert.equal(reply.body.status, 'bot');
    assert.deepEqual(Object.keys(reply.body.reply).sort(), ['content', 'id', 'model', 'tokens_in', 'tokens_out']);
    assert.deepEqual([reply.body.reply.content, reply.body.reply.tokens_in, reply.body.reply.tokens_out], ['We open at nine.', 40, 6]);
    const conversation = await Conversation.findOne({ where: { publicId: reply.body.conversation_id } });
    assert.deepEqual([conversation?.channel, conversation?.visitorKey, conversation?.meta], ['api', 'crm-7', { source: 'crm' }]);
    assert.equal(await UsageRecord.count({ where: { conversationId: conversation!.id } }), 1);

    fakeLlm().script({ reply: 'Until six.' });
    const next = await request('POST', t.path, { token: t.token, body: { message: 'And close?', visitor_id: 'crm-7', conversation_id: reply.body.conversation_id } });
    assert.equal(next.body.conversation_id, reply.body.conversation_id);
    assert.equal(await Message.count({ where: { conversationId: conversation!.id } }), 4);
  });

  it('gives reply null with a note while a human holds the conversation', async () => {
    const t = await tenant();
    fakeLlm().script({ reply: 'Hi' });
    const opened = await request('POST', t.path, { token: t.token, body: { message: 'Hi', visitor_id: 'v1' } });
    await server().actors.ask('conversation', opened.body.conversation_id, { type: 'takeover', userId: t.owner.id });
    const held = await request('POST', t.path, { token: t.token, body: { message: 'Still there?', visitor_id: 'v1', conversation_id: opened.body.conversation_id } });
    assert.equal(held.status, 200);
    assert.deepEqual([held.body.status, held.body.reply, typeof held.body.note], ['agent', null, 'string']);
  });

  it('422 per field, 404 for another workspace\'s chatbot or conversation, 403 without handle-conversations', async () => {
    const t = await tenant();
    for (const [body, field] of [
      [{ visitor_id: 'v' }, 'message'],
      [{ message: '   ', visitor_id: 'v' }, 'message'],
      [{ message: 'x'.repeat(4001), visitor_id: 'v' }, 'message'],
      [{ message: 'hi' }, 'visitor_id'],
      [{ message: 'hi', visitor_id: 'v'.repeat(101) }, 'visitor_id'],
      [{ message: 'hi', visitor_id: 'v', conversation_id: '42' }, 'conversation_id'],
      [{ message: 'hi', visitor_id: 'v', meta: 'text' }, 'meta'],
    ] as const) {
      const reply = await request('POST', t.path, { token: t.token, body });
      assert.equal(reply.status, 422, JSON.stringify(body));
      assert.ok(reply.body.errors[field], JSON.stringify(reply.body));
    }
    const other = await tenant();
    assert.equal((await request('POST', other.path, { token: t.token, body: { message: 'hi', visitor_id: 'v' } })).status, 404);
    fakeLlm().script({ reply: 'Hi' });
    const theirs = await request('POST', other.path, { token: other.token, body: { message: 'hi', visitor_id: 'v' } });
    assert.equal((await request('POST', t.path, { token: t.token, body: { message: 'hi', visitor_id: 'v', conversation_id: theirs.body.conversation_id } })).status, 404);
    const viewer = await make.token(await make.user(t.company, 'viewer'));
    assert.equal((await request('POST', t.path, { token: viewer, body: { message: 'hi', visitor_id: 'v' } })).status, 403);
  });

  it('429 once the monthly allowance is spent; 502 when the provider cannot be reached (the message is kept)', async () => {
    const free = await tenant('free');
    await UsageRecord.bulkCreate(Array.from({ length: 100 }, () => ({ companyId: free.company.id, kind: 'reply' as const, provider: 'openai' as const, model: 'gpt-4o-mini' })));
    const limited = await request('POST', free.path, { token: free.token, body: { message: 'hi', visitor_id: 'v' } });
    assert.deepEqual([limited.status, limited.body.code], [429, 'limit_reached']);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);

    const t = await tenant();
    fakeLlm().script({ fail: { status: 401, message: 'bad key' } });
    const failed = await request('POST', t.path, { token: t.token, body: { message: 'hi', visitor_id: 'v' } });
    assert.equal(failed.status, 502);
    assert.equal(failed.body.code, 'provider_unreachable');
    const conversation = await Conversation.findOne({ where: { publicId: failed.body.conversation_id } });
    assert.deepEqual((await Message.findAll({ where: { conversationId: conversation!.id } })).map((m) => m.role), ['visitor']);
  });
});
