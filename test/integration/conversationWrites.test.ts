import { strict as assert } from 'node:assert';
import { createTag } from '../../src/domain/catalogue/createTag';
import { AiSuggestion, Conversation, ConversationEvent, Lead, Message } from '../../src/models';
import { agentTenant, secondAgentInbox } from '../support/agent';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { request } from '../support/http';
import type { ClientSocket, Inbox } from '../support/sockets';

type Tenant = Awaited<ReturnType<typeof agentTenant>>;

const post = (token: string, path: string, body?: unknown) => request('POST', `/api/agent${path}`, { token, body });

/**
 * Every conversation write goes through the conversation's actor and is seen live by the other
 * agents of the workspace: each test writes as one agent and watches a second agent's socket.
 */
describe('conversation writes reach other agents live (conversation.updated)', () => {
  const sockets: ClientSocket[] = [];
  afterEach(() => {
    sockets.splice(0).forEach((socket) => socket.close());
    fakeLlm().reset();
  });

  const secondAgent = (t: Tenant) => secondAgentInbox(t.company, sockets);

  /** The `conversation.updated` events of this conversation so far, once at least `count` arrived. */
  async function updates(inbox: Inbox, conversation: Conversation, count = 1) {
    const mine = () => inbox.received.filter((r) => r.name === 'conversation.updated' && (r.payload.data as { id?: string }).id === conversation.publicId);
    await inbox.next(() => mine().length >= count);
    return mine().map((r) => r.payload);
  }

  /** The seq stored with the conversation: the last event's, so realtime and the record agree. */
  const storedSeq = async (conversation: Conversation) => Number((await Conversation.findByPk(conversation.id))!.seq);

  it('revenue', async () => {
    const t = await agentTenant();
    const conversation = await make.conversation(t.bot);
    const inbox = await secondAgent(t);
    const reply = await post(t.token, `/conversations/${conversation.publicId}/revenue`, { amount: 99 });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const [event] = await updates(inbox, conversation);
    assert.equal(event!.seq, await storedSeq(conversation));
    assert.equal(Number((await Conversation.findByPk(conversation.id))!.revenueCents), 9900);
  });

  it('lead', async () => {
    const t = await agentTenant();
    const conversation = await make.conversation(t.bot);
    await conversation.update({ visitorEmail: 'ada@example.test' });
    const inbox = await secondAgent(t);
    const reply = await post(t.token, `/conversations/${conversation.publicId}/lead`);
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const [event] = await updates(inbox, conversation);
    assert.equal(event!.seq, await storedSeq(conversation));
    assert.equal(await Lead.count({ where: { conversationId: conversation.id } }), 1);
  });

  it('summary, then the AI tag suggestions that follow it', async () => {
    const t = await agentTenant();
    await make.providerKey(t.company, t.bot.provider);
    const tag = await createTag(t.company.id, { name: 'Billing' });
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'I was charged twice.']] });
    const inbox = await secondAgent(t);
    // The fake answers both calls alike: the summary is this JSON text, and the tagging reads it as its answer.
    fakeLlm().script({ reply: JSON.stringify({ tags: [{ id: tag.id, confidence: 0.9, reason: 'Charged twice.' }] }) });
    const reply = await post(t.token, `/conversations/${conversation.publicId}/summary`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const [summary, tags] = await updates(inbox, conversation, 2);
    assert.ok(summary!.seq < tags!.seq);
    assert.equal(tags!.seq, await storedSeq(conversation));
  });

  it('AI reply suggestion and its outcome', async () => {
    const t = await agentTenant();
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Hello?']] });
    const inbox = await secondAgent(t);
    const suggested = await post(t.token, `/conversations/${conversation.publicId}/suggest`);
    assert.equal(suggested.status, 200, JSON.stringify(suggested.body));
    await updates(inbox, conversation, 1);
    const outcome = await post(t.token, `/suggestion/${suggested.body.id}/outcome`, { outcome: 'dismissed' });
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    const [first, second] = await updates(inbox, conversation, 2);
    assert.ok(first!.seq < second!.seq);
    assert.equal((await AiSuggestion.findByPk(suggested.body.id))?.outcome, 'dismissed');
  });

  it('agent reply: takeover and line in one write, one event each, in order', async () => {
    const t = await agentTenant();
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Anyone?']] });
    const inbox = await secondAgent(t);
    const reply = await post(t.token, `/conversations/${conversation.publicId}/reply`, { body: 'Here!' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const created = await inbox.next((r) => r.name === 'message.created');
    const [updated] = await updates(inbox, conversation);
    assert.deepEqual([updated!.seq + 1, created.payload.seq], [created.payload.seq, await storedSeq(conversation)]);
  });
});

describe('an agent reply is one write', () => {
  // A trigger that refuses the reply's line after the takeover was written in the same transaction.
  const FAIL = 'this line cannot be stored';
  before(async () => {
    await server().ctx.db.sequelize.query(`
      CREATE FUNCTION refuse_test_line() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.content = '${FAIL}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_test_line BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION refuse_test_line();`);
  });
  after(async () => {
    await server().ctx.db.sequelize.query('DROP TRIGGER refuse_test_line ON messages; DROP FUNCTION refuse_test_line();');
  });

  it('a failure storing the line leaves no takeover behind; the retry saves both', async () => {
    const t = await agentTenant();
    const conversation = await make.conversation(t.bot, { messages: [['visitor', 'Hello?']] });
    const failed = await post(t.token, `/conversations/${conversation.publicId}/reply`, { body: FAIL });
    assert.equal(failed.status, 500, JSON.stringify(failed.body));
    const after = await Conversation.findByPk(conversation.id);
    assert.deepEqual([after?.status, after?.handoffState, after?.assignedUserId], ['bot', 'bot_active', null]);
    assert.equal(await ConversationEvent.count({ where: { conversationId: conversation.id } }), 0);
    assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 0);

    const retried = await post(t.token, `/conversations/${conversation.publicId}/reply`, { body: 'Sorry, here now.' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    const held = await Conversation.findByPk(conversation.id);
    assert.deepEqual([held?.status, held?.handoffState, held?.assignedUserId], ['agent', 'human_connected', t.agent.id]);
    assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 1);
  });
});

describe('one open conversation per visitor and chatbot', () => {
  const openCount = (botId: number, visitorKey: string) => Conversation.count({ where: { chatbotId: botId, visitorKey, status: ['bot', 'agent'] } });

  it('the database refuses a second open conversation', async () => {
    const t = await agentTenant();
    const first = await make.conversation(t.bot);
    await assert.rejects(make.conversation(t.bot, { visitorKey: first.visitorKey }), /unique/i);
    await make.conversation(t.bot, { visitorKey: first.visitorKey, status: 'closed' });
  });

  it('a v1 message without a conversation id starts a new conversation, closing the visitor\'s open one first', async () => {
    const t = await make.v1Tenant();
    const open = await make.conversation(t.bot, { status: 'agent' });
    const reply = await request('POST', `/api/v1/chatbots/${t.bot.publicKey}/messages`, { token: t.token, body: { message: 'Me again', visitor_id: open.visitorKey } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.notEqual(reply.body.conversation_id, open.publicId);
    await open.reload();
    assert.deepEqual([open.status, open.resolution], ['closed', null], 'closed as the widget\'s new chat closes it');
    const started = await Conversation.findOne({ where: { publicId: reply.body.conversation_id }, rejectOnEmpty: true });
    assert.deepEqual([started.status, started.visitorKey, started.channel], ['bot', open.visitorKey, 'api']);
    assert.equal(await openCount(t.bot.id, open.visitorKey), 1);
  });

  it('reopening a closed conversation beside an open one is 409 naming the open one', async () => {
    const t = await agentTenant();
    const closed = await make.conversation(t.bot, { status: 'closed' });
    const open = await make.conversation(t.bot, { visitorKey: closed.visitorKey });
    const reply = await post(t.token, `/conversations/${closed.publicId}/reopen`);
    assert.equal(reply.status, 409, JSON.stringify(reply.body));
    assert.deepEqual([reply.body.code, reply.body.conversation_id], ['conversation_open', open.publicId]);
    assert.equal((await Conversation.findByPk(closed.id))?.status, 'closed');
  });
});
