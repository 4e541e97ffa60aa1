import { strict as assert } from 'node:assert';
import { Conversation, Message } from '../../src/models';
import { secondAgentInbox } from '../support/agent';
import * as make from '../support/factories';
import { fakeLlm, server } from '../support/hooks';
import { get, request, type Reply } from '../support/http';
import type { ClientSocket } from '../support/sockets';
import { widgetTenant } from '../support/widget';

type Tenant = Awaited<ReturnType<typeof widgetTenant>>;

const rate = (t: Tenant, messageId: number | string, body: Record<string, unknown>): Promise<Reply> =>
  request('POST', `${t.base}/messages/${messageId}/feedback`, { body, headers: { 'X-Forwarded-For': t.ip } });

/** A conversation with two AI answers; returns it and its lines by role. */
async function answered(t: Tenant) {
  const conversation = await make.conversation(t.bot, {
    messages: [['visitor', 'Do you ship to Norway?'], ['assistant', 'Yes, within five days.'], ['visitor', 'And Iceland?'], ['assistant', 'Not yet, sorry.']],
  });
  const lines = await Message.findAll({ where: { conversationId: conversation.id }, order: [['id', 'ASC']] });
  return { conversation, visitorLine: lines[0]!, first: lines[1]!, second: lines[3]! };
}

describe('answer feedback: the visitor rates AI answers', () => {
  const sockets: ClientSocket[] = [];
  beforeEach(() => fakeLlm().reset());
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it('stores thumbs up or down (a repeat replaces it), agents see it live and in the thread, analytics count it', async () => {
    const t = await widgetTenant();
    const { conversation, first, second } = await answered(t);
    const inbox = await secondAgentInbox(t.company, sockets);

    const up = await rate(t, first.id, { visitor_id: conversation.visitorKey, rating: 'up' });
    assert.deepEqual([up.status, up.body], [200, { ok: true }]);
    await inbox.next((r) => r.name === 'conversation.updated' && (r.payload.data as { id?: string }).id === conversation.publicId);
    assert.deepEqual(
      [(await first.reload()).rating, first.ratingComment, first.ratedAt instanceof Date],
      ['up', null, true],
    );

    const down = await rate(t, second.id, { visitor_id: conversation.visitorKey, rating: 'down', comment: '  Iceland is close to Norway!  ' });
    assert.equal(down.status, 200, JSON.stringify(down.body));
    const changed = await rate(t, first.id, { visitor_id: conversation.visitorKey, rating: 'down' });
    assert.equal(changed.status, 200);
    assert.deepEqual([(await first.reload()).rating, (await second.reload()).rating, second.ratingComment], ['down', 'down', 'Iceland is close to Norway!']);
    await rate(t, first.id, { visitor_id: conversation.visitorKey, rating: 'up' });

    const agentToken = await make.token(t.owner, 'agent');
    const thread = await get(`/api/agent/conversations/${conversation.publicId}`, agentToken);
    assert.equal(thread.status, 200, JSON.stringify(thread.body));
    assert.deepEqual(
      thread.body.active.messages.map((m: { role: string; rating: string | null }) => [m.role, m.rating]),
      [['visitor', null], ['assistant', 'up'], ['visitor', null], ['assistant', 'down']],
    );

    const portal = await make.token(t.owner, 'portal');
    await t.company.update({ portalEnabled: true });
    const analytics = await get('/api/portal/analytics', portal);
    assert.equal(analytics.status, 200, JSON.stringify(analytics.body));
    assert.deepEqual([analytics.body.data.ratings_up, analytics.body.data.ratings_down], [1, 1]);
  });

  it('rates only AI answers of the visitor’s own conversation on this chatbot: everything else is one 404', async () => {
    const t = await widgetTenant();
    const { conversation, visitorLine, first } = await answered(t);
    const other = await widgetTenant();
    const foreign = await answered(other);
    const cases: Array<[string, Tenant, number | string, string]> = [
      ['a visitor line', t, visitorLine.id, conversation.visitorKey],
      ['another visitor', t, first.id, 'visitor-someone-else'],
      ['another chatbot’s answer', t, foreign.first.id, foreign.conversation.visitorKey],
      ['a missing id', t, Number(first.id) + 1_000_000, conversation.visitorKey],
      ['a non-numeric id', t, 'abc', conversation.visitorKey],
      ['an id too long', t, '99999999999999999999', conversation.visitorKey],
    ];
    for (const [what, tenant, id, visitor] of cases) {
      const reply = await rate(tenant, id, { visitor_id: visitor, rating: 'up' });
      assert.equal(reply.status, 404, `${what}: ${JSON.stringify(reply.body)}`);
      assert.equal(typeof reply.body.message, 'string', what);
    }
    assert.equal(await Message.count({ where: { conversationId: [conversation.id, foreign.conversation.id], rating: 'up' } }), 0);
  });

  it('answers 422 naming the field for a bad rating, a missing visitor id or a long comment', async () => {
    const t = await widgetTenant();
    const { conversation, first } = await answered(t);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ visitor_id: conversation.visitorKey, rating: 'meh' }, 'rating'],
      [{ visitor_id: conversation.visitorKey }, 'rating'],
      [{ rating: 'up' }, 'visitor_id'],
      [{ visitor_id: conversation.visitorKey, rating: 'down', comment: 'x'.repeat(1001) }, 'comment'],
    ];
    for (const [body, field] of bad) {
      const reply = await rate(t, first.id, body);
      assert.equal(reply.status, 422, JSON.stringify(reply.body));
      assert.ok(reply.body.errors?.[field], `${field}: ${JSON.stringify(reply.body)}`);
    }
    assert.equal((await first.reload()).rating, null);
  });

  it('refuses a blocked visitor (403 `blocked`), storing nothing', async () => {
    const t = await widgetTenant();
    const { conversation, first } = await answered(t);
    await server().actors.ask('conversation', conversation.publicId, { type: 'block', userId: t.owner.id, blocked: true });
    const reply = await rate(t, first.id, { visitor_id: conversation.visitorKey, rating: 'down' });
    assert.deepEqual([reply.status, reply.body.code], [403, 'blocked']);
    assert.equal((await first.reload()).rating, null);
    assert.equal((await Conversation.findByPk(conversation.id))?.blocked, true);
  });
});
