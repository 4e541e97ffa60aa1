import { strict as assert } from 'node:assert';
import { Conversation, ConversationTag, Tag, Visitor } from '../../src/models';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';
import { server } from '../support/hooks';

/**
 * A list without an open thread is written on the lean path as JSON text from fragments Postgres
 * builds (src/domain/inbox/listText.ts), not by the presenter and `res.json`: the same request on
 * the generic stack (a trailing slash takes it there, to the same endpoint) must answer the same
 * bytes, for values that test the escaping (quotes, backslashes, control characters, line and
 * paragraph separators, emoji), every way a visitor is named, tags, groups, unread counts, waiting
 * times, presence and relative times. Times are kept clear of the display's boundaries (a minute,
 * an hour, a day; departure), so the two requests, made one after the other, see the same values.
 */
const NASTY = 'He said "hi" \\ then\nleft\t\u0001\u001f \u2028\u2029 caf\u00e9 \u{1F600} </script> \u007f';
const ago = (ms: number) => new Date(Date.now() - ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function text(path: string, token: string): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(`${server().url}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
}

async function sameOnBoth(path: string, token: string): Promise<string> {
  const query = path.indexOf('?');
  const generic = query < 0 ? `${path}/` : `${path.slice(0, query)}/${path.slice(query)}`;
  const [lean, stack] = [await text(path, token), await text(generic, token)];
  assert.equal(lean.status, 200, lean.body);
  assert.equal(stack.status, 200, stack.body);
  assert.equal(lean.type, stack.type);
  assert.equal(lean.body, stack.body, `${path}: the lean list differs from the presenter's`);
  return lean.body;
}

describe('agent inbox, lean list: the same bytes as the presenter', () => {
  it('answers a list byte for byte as the generic stack does', async () => {
    const { company, agent, bot, token } = await agentTenant();
    const colleague = await make.user(company, 'agent', `Colleague ${NASTY}`);
    const tags = await Promise.all([
      Tag.create({ companyId: company.id, name: `b ${NASTY}`.slice(0, 60), color: '#ff0000' }),
      Tag.create({ companyId: company.id, name: 'a "quoted"', color: '#00ff00' }),
    ]);
    const rows: Array<Record<string, unknown>> = [
      { visitorName: NASTY, lastMessageAt: ago(20_000), lastMessagePreview: NASTY, unreadCount: 3 },
      { visitorName: '', visitorEmail: 'e"mail@example.test', lastMessageAt: ago(10 * MINUTE + 30_000) },
      { visitorName: null, visitorEmail: '', visitorKey: 'k-ab.c_d!e-f9 x', lastMessageAt: ago(5 * HOUR + 30 * MINUTE), lastMessagePreview: null },
      { visitorName: null, visitorEmail: null, visitorKey: '--..--', lastMessageAt: ago(3 * 24 * HOUR + 12 * HOUR) },
      { visitorKey: 'v-\u00e9\u00df-1234567', status: 'agent', handoffState: 'human_connected', assignedUserId: agent.id, lastMessageAt: ago(90_500) },
      { status: 'agent', handoffState: 'human_connected', assignedUserId: colleague.id, escalated: true, resolution: 'other', lastMessageAt: ago(2 * MINUTE + 5_000) },
      { handoffState: 'handoff_pending', handoffRequestedAt: ago(95_500), lastMessageAt: ago(30_000) },
      { handoffState: 'handoff_pending', handoffRequestedAt: null, escalated: true, lastMessageAt: ago(40_000) },
      { handoffState: 'handoff_pending', handoffRequestedAt: new Date(Date.now() + HOUR), lastMessageAt: new Date(Date.now() + HOUR) },
      { status: 'closed', resolution: 'resolved', lastMessageAt: ago(7 * 24 * HOUR + HOUR) },
    ];
    const made = [];
    for (const [i, fields] of rows.entries()) {
      const conversation = await make.conversation(bot, { visitorKey: (fields.visitorKey as string | undefined) ?? `lean-list-${i}-${Date.now()}` });
      // Microseconds in the times: the display truncates them to milliseconds, as Date parsing does.
      const at = fields.lastMessageAt as Date;
      await conversation.update({ ...fields, visitorKey: conversation.visitorKey, lastMessageAt: at });
      await Conversation.sequelize!.query(`UPDATE conversations SET last_message_at = last_message_at + interval '789 microseconds' WHERE id = $1`, { bind: [conversation.id] });
      made.push(conversation);
    }
    // Presence: one visitor seen "in the future" (online whatever the departure time), one a day ago (gone).
    await Visitor.create({ companyId: company.id, visitorKey: made[0]!.visitorKey, lastSeenAt: new Date(Date.now() + HOUR) });
    await Visitor.create({ companyId: company.id, visitorKey: made[1]!.visitorKey, lastSeenAt: ago(24 * HOUR) });
    for (const tag of tags) await ConversationTag.create({ conversationId: made[0]!.id, tagId: tag.id, companyId: company.id });
    await ConversationTag.create({ conversationId: made[5]!.id, tagId: tags[1]!.id, companyId: company.id });

    const body = await sameOnBoth('/api/agent/inbox', token);
    const parsed = JSON.parse(body) as { conversations: Array<Record<string, unknown>>; listed: number };
    assert.equal(parsed.listed, rows.length - 1, 'every open conversation listed');
    // The data reached the comparison: escaping, names, presence, waiting, tags.
    const item = parsed.conversations.find((c) => c.preview === NASTY)!;
    assert.equal(item.visitor, NASTY);
    assert.equal(item.online, true);
    assert.equal((item.tags as unknown[]).length, 2);
    assert.ok(parsed.conversations.some((c) => c.visitor === 'Visitor CDEF9X'), body);
    assert.ok(parsed.conversations.some((c) => c.visitor === 'Visitor #'), body);
    assert.ok(parsed.conversations.some((c) => typeof c.waiting_seconds === 'number' && c.waiting_seconds >= 95), body);
    assert.ok(parsed.conversations.some((c) => c.mine === true), body);
    assert.ok(parsed.conversations.some((c) => c.last_at === '3d ago') && parsed.conversations.some((c) => c.last_at === '5h ago'), body);

    for (const path of ['/api/agent/inbox?filter=waiting', '/api/agent/inbox?filter=mine', '/api/agent/inbox?filter=resolved', '/api/agent/inbox?filter=team', '/api/agent/inbox?q=quoted', '/api/agent/inbox?q=nothing-matches-this']) {
      await sameOnBoth(path, token);
    }
  });

  it('pages as the generic stack does: the cursor, the next page, an empty inbox', async () => {
    const { bot, token } = await agentTenant();
    const { token: empty } = await agentTenant();
    await sameOnBoth('/api/agent/inbox', empty);
    for (let i = 0; i < 63; i++) await make.conversation(bot, { lastMessageAt: ago(i * 1000 + 500) });
    const first = JSON.parse(await sameOnBoth('/api/agent/inbox', token)) as { next_cursor: string | null; listed: number };
    assert.equal(first.listed, 60);
    assert.ok(first.next_cursor);
    const second = JSON.parse(await sameOnBoth(`/api/agent/inbox?before=${first.next_cursor}`, token)) as { next_cursor: string | null; listed: number };
    assert.equal(second.listed, 3);
    assert.equal(second.next_cursor, null);
  });
});
