import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Conversation, ConversationTag, Message, Visitor } from '../../src/models';
import { createTag } from '../../src/domain/catalogue/createTag';
import { get, request } from '../support/http';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';

const INBOX_ITEM_KEYS = [
  'id', 'chatbot', 'visitor', 'email', 'status', 'channel', 'last_at', 'preview', 'escalated', 'unread', 'resolution',
  'tags', 'group', 'handoff_state', 'assigned_to', 'mine', 'online', 'waiting_seconds',
].sort();

const ACTIVE_KEYS = [
  'id', 'status', 'resolution', 'resolved_at', 'handoff_requested_at', 'escalated', 'resolved_by_ai', 'events', 'tags',
  'tag_suggestions', 'visitor', 'chatbot', 'channel', 'email', 'phone', 'page', 'referrer', 'entry_page', 'locale',
  'detected_language', 'joined', 'msg_count', 'group', 'handoff_state', 'assigned_to', 'mine', 'online', 'last_seen',
  'waiting_seconds', 'device', 'browser', 'os', 'country', 'timezone', 'page_views', 'prechat', 'prechat_greeting',
  'journey', 'revenue_cents', 'revenue_amount', 'revenue_currency', 'revenue_label', 'summary', 'summary_at', 'intent',
  'lead_id', 'lead_status', 'messages', 'notes', 'watchers', 'watching', 'routed_by', 'blocked', 'abuse_strikes',
].sort();

/** One conversation in each inbox group (as the signed-in agent sees them), plus one escalated by the AI. */
async function inboxOfEveryGroup() {
  const tenant = await agentTenant();
  const colleague = await make.user(tenant.company, 'agent', 'Colleague');
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  const make_ = async (name: string, minutes: number, fields: Partial<Conversation>) => {
    const conversation = await make.conversation(tenant.bot, { lastMessageAt: minutesAgo(minutes), messages: [['visitor', `${name} asks`]] });
    await conversation.update({ visitorName: name, lastMessagePreview: `${name} asks`, ...fields });
    return conversation;
  };
  const c = {
    waiting: await make_('Wendy', 1, { handoffState: 'handoff_pending', handoffRequestedAt: minutesAgo(2) }),
    escalated: await make_('Eve', 2, { handoffState: 'handoff_pending', escalated: true, handoffRequestedAt: minutesAgo(3) }),
    mine: await make_('Mia', 3, { status: 'agent', handoffState: 'human_connected', assignedUserId: tenant.agent.id }),
    team: await make_('Tom', 4, { status: 'agent', handoffState: 'human_connected', assignedUserId: colleague.id }),
    ai: await make_('Ada', 90, { unreadCount: 2 }),
    resolved: await make_('Rex', 3 * 24 * 60, { status: 'closed', resolution: 'resolved', resolvedAt: new Date() }),
  };
  return { ...tenant, colleague, c };
}

const inbox = (token: string, query = '') => get(`/api/agent/inbox${query}`, token);
const ids = (reply: { body: { conversations: Array<{ id: string }> } }) => reply.body.conversations.map((item) => item.id);

describe('agent: GET /api/agent/inbox and GET /api/agent/conversations/{conversation}', () => {
  it('lists open conversations, newest activity first, with every inbox item field', async () => {
    const { token, bot, c, colleague } = await inboxOfEveryGroup();
    const reply = await inbox(token);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body).sort(), ['active', 'conversations', 'counts', 'groups', 'list_limit', 'listed', 'next_cursor']);
    assert.deepEqual(ids(reply), [c.waiting, c.escalated, c.mine, c.team, c.ai].map((x) => x.publicId));
    assert.equal(reply.body.listed, 5);
    assert.equal(reply.body.list_limit, 60);
    assert.equal(reply.body.active, null);
    for (const item of reply.body.conversations) assert.deepEqual(Object.keys(item).sort(), INBOX_ITEM_KEYS);
    const [waiting, escalated, mine, team, ai] = reply.body.conversations;
    assert.deepEqual(
      { ...waiting, id: undefined },
      {
        id: undefined, chatbot: bot.name, visitor: 'Wendy', email: null, status: 'bot', channel: 'widget', last_at: '1m ago',
        preview: 'Wendy asks', escalated: false, unread: 0, resolution: null, tags: [], group: 'waiting',
        handoff_state: 'handoff_pending', assigned_to: null, mine: false, online: false, waiting_seconds: waiting.waiting_seconds,
      },
    );
    assert.ok(waiting.waiting_seconds >= 119 && waiting.waiting_seconds <= 125, String(waiting.waiting_seconds));
    assert.deepEqual([escalated.group, escalated.escalated], ['waiting', true]);
    assert.deepEqual([mine.group, mine.mine, mine.waiting_seconds], ['mine', true, null]);
    assert.deepEqual([team.group, team.mine, team.assigned_to], ['team', false, colleague.name]);
    assert.deepEqual([ai.group, ai.unread, ai.last_at], ['ai', 2, '1h ago']);
  });

  it('counts and groups cover the whole inbox whatever the filter', async () => {
    const { token } = await inboxOfEveryGroup();
    const expected = {
      counts: { all: 5, ai: 1, human: 2, resolved: 1, unread: 1 },
      groups: { waiting: 2, mine: 1, team: 1, ai: 1, resolved: 1 },
    };
    for (const filter of ['all', 'waiting', 'mine', 'team', 'ai', 'human', 'resolved']) {
      const reply = await inbox(token, `?filter=${filter}`);
      assert.deepEqual({ counts: reply.body.counts, groups: reply.body.groups }, expected, filter);
    }
  });

  it('each filter lists its own group(s)', async () => {
    const { token, c } = await inboxOfEveryGroup();
    const expected: Record<string, string[]> = {
      waiting: [c.waiting.publicId, c.escalated.publicId],
      mine: [c.mine.publicId],
      team: [c.team.publicId],
      ai: [c.ai.publicId],
      human: [c.mine.publicId, c.team.publicId],
      resolved: [c.resolved.publicId],
    };
    for (const [filter, list] of Object.entries(expected)) assert.deepEqual(ids(await inbox(token, `?filter=${filter}`)), list, filter);
    const resolved = (await inbox(token, '?filter=resolved')).body.conversations[0];
    assert.deepEqual([resolved.group, resolved.resolution, resolved.last_at], ['resolved', 'resolved', '3d ago']);
  });

  it('a colleague sees the same conversations the other way round (mine <-> team)', async () => {
    const { colleague, c } = await inboxOfEveryGroup();
    const theirs = await inbox(await make.token(colleague, 'agent'), '?filter=mine');
    assert.deepEqual(ids(theirs), [c.team.publicId]);
  });

  it('returns at most 60 rows while the counts cover all of them', async () => {
    const { token, bot, company } = await agentTenant();
    await Conversation.bulkCreate(
      Array.from({ length: 65 }, (_, i) => ({ companyId: company.id, chatbotId: bot.id, visitorKey: `v-${i}`, lastMessageAt: new Date(Date.now() - i * 1000) })),
    );
    const reply = await inbox(token);
    assert.deepEqual([reply.body.conversations.length, reply.body.listed, reply.body.list_limit, reply.body.counts.all], [60, 60, 60, 65]);
  });

  it('opening a conversation fills `active` with every field and marks it read for everyone', async () => {
    const { token, company, bot, agent, c } = await inboxOfEveryGroup();
    const tag = await createTag(company.id, { name: 'vip', color: '#00ff00' });
    await ConversationTag.create({ conversationId: c.ai.id, tagId: tag.id, companyId: company.id });
    await Visitor.create({ companyId: company.id, chatbotId: bot.id, visitorKey: c.ai.visitorKey, page: 'https://shop.example/cart', country: 'DE', device: 'Desktop', browser: 'Chrome', os: 'Windows', pageViews: 3, lastSeenAt: new Date() });
    await c.ai.update({ prechat: [{ field: 'email', value: 'ada@example.test' }], visitorEmail: 'ada@example.test' });
    const reply = await inbox(token, `?conversation=${c.ai.publicId}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const { active } = reply.body;
    assert.deepEqual(Object.keys(active).sort(), ACTIVE_KEYS);
    assert.equal(active.id, c.ai.publicId);
    assert.deepEqual(active.tags, [{ id: tag.id, name: 'vip', color: '#00ff00', source: 'agent' }]);
    assert.deepEqual(active.messages.map((m: { role: string; content: string }) => [m.role, m.content]), [['visitor', 'Ada asks']]);
    assert.deepEqual([active.page, active.country, active.browser, active.page_views, active.online], ['https://shop.example/cart', 'DE', 'Chrome', 3, true]);
    assert.deepEqual([active.email, active.prechat], ['ada@example.test', [{ field: 'email', value: 'ada@example.test' }]]);
    assert.deepEqual([active.revenue_cents, active.revenue_currency, active.lead_id, active.watchers, active.watching], [0, 'USD', null, [], false]);
    assert.equal(active.group, 'ai');
    assert.equal(reply.body.counts.unread, 0, 'the open thread no longer counts as unread');
    assert.equal(reply.body.conversations.find((item: { id: string }) => item.id === c.ai.publicId).unread, 0);
    assert.equal((await c.ai.reload()).unreadCount, 0);
    assert.equal(agent.id, (await inbox(token, `?conversation=${c.mine.publicId}`)).body.active.mine ? agent.id : -1);
  });

  it('GET /conversations/{id}: the thread in `active`, an empty list, 200 with active null for unknown or foreign ids', async () => {
    const { token, c } = await inboxOfEveryGroup();
    const other = await inboxOfEveryGroup();
    const reply = await get(`/api/agent/conversations/${c.waiting.publicId}`, token);
    assert.equal(reply.status, 200);
    assert.deepEqual([reply.body.conversations, reply.body.listed, reply.body.active.id, reply.body.groups.waiting], [[], 0, c.waiting.publicId, 2]);
    for (const id of [randomUUID(), 'not-a-uuid', other.c.waiting.publicId]) {
      const unknown = await get(`/api/agent/conversations/${id}`, token);
      assert.deepEqual([unknown.status, unknown.body.active], [200, null], id);
    }
  });

  it('shows events, notes and an agent reply in the thread after the actions', async () => {
    const { token, c, agent } = await inboxOfEveryGroup();
    const path = `/api/agent/conversations/${c.ai.publicId}`;
    const sent = await request('POST', `${path}/reply`, { token, body: { body: 'Hello Ada' } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await request('POST', `${path}/notes`, { token, body: { body: 'Called her yesterday' } });
    const { active } = (await get(path, token)).body;
    assert.deepEqual(active.events.map((e: { type: string; source: string }) => `${e.type}/${e.source}`), ['human_connected/agent']);
    assert.deepEqual(active.notes.map((n: { body: string; author: string }) => [n.body, n.author]), [['Called her yesterday', agent.name]]);
    assert.deepEqual(active.messages.map((m: { role: string }) => m.role), ['visitor', 'agent']);
    assert.deepEqual([active.group, active.mine, active.msg_count >= 1], ['mine', true, true]);
    assert.equal(await Message.count({ where: { conversationId: c.ai.id } }), 2);
  });

  it('422 for an unknown filter; 401 without a token; 403 with a portal token', async () => {
    const { token, owner } = await agentTenant();
    const bad = await inbox(token, '?filter=everything');
    assert.equal(bad.status, 422);
    assert.ok(bad.body.errors.filter);
    assert.equal((await get('/api/agent/inbox')).status, 401);
    assert.equal((await get('/api/agent/inbox', await make.token(owner, 'portal'))).status, 403);
  });
});
