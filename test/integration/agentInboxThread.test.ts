import { strict as assert } from 'node:assert';
import { Conversation, ConversationEvent, ConversationTag, Lead, Message, Note, PageView, TagSuggestion, Visitor } from '../../src/models';
import { createTag } from '../../src/domain/catalogue/createTag';
import { THREAD_MESSAGES } from '../../src/domain/inbox/activeConversation';
import { get } from '../support/http';
import { agentTenant } from '../support/agent';
import * as make from '../support/factories';

/**
 * The open thread (`active`) is read in one statement: each part of it, in the order and with the
 * limits the agent app relies on, and opening an unread thread from two places at once.
 */
const open = (token: string, conversation: Conversation) => get(`/api/agent/inbox?conversation=${conversation.publicId}`, token);
const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);

describe('agent: the open thread (`active`), read in one statement', () => {
  it('shows every part of the conversation in its order: messages, events, tags, suggestions, notes, journey, lead', async () => {
    const { token, company, bot, agent } = await agentTenant();
    const colleague = await make.user(company, 'agent', 'Colleague');
    const gone = await make.user(company, 'agent', 'Gone');
    const c = await make.conversation(bot);
    await Message.bulkCreate(
      Array.from({ length: THREAD_MESSAGES + 5 }, (_, i) => ({ companyId: company.id, conversationId: c.id, role: i % 2 ? 'assistant' : 'visitor', content: `line ${i}`, ...(i === 7 && { rating: 'up' }) }) as const),
    );
    await c.update({ meta: { page_url: 'https://shop.example/meta', referrer: 'https://ref.example/' }, prechat: [{ field: 'phone', value: '+31 6 1234 5678' }], revenueCents: 12345, revenueCurrency: 'EUR', summary: 'Wants a refund' });
    const visitor = await Visitor.create({ companyId: company.id, chatbotId: bot.id, visitorKey: c.visitorKey, page: 'https://shop.example/cart', country: 'DE', pageViews: 25, firstSeenAt: new Date('2026-11-20T08:00:00Z'), lastSeenAt: new Date('2026-11-21T09:30:00Z') });
    await PageView.bulkCreate(Array.from({ length: 25 }, (_, i) => ({ companyId: company.id, visitorId: visitor.id, url: `https://shop.example/p${i}`, viewedAt: secondsAgo(100 - i) })));
    const [vip, billing, refund] = [await createTag(company.id, { name: 'vip', color: '#00ff00' }), await createTag(company.id, { name: 'billing', color: '#0000ff' }), await createTag(company.id, { name: 'refund', color: '#ff0000' })];
    await ConversationTag.create({ conversationId: c.id, tagId: vip.id, companyId: company.id, createdAt: secondsAgo(20) });
    await ConversationTag.create({ conversationId: c.id, tagId: billing.id, companyId: company.id, source: 'ai', createdAt: secondsAgo(10) });
    await TagSuggestion.bulkCreate([
      { companyId: company.id, conversationId: c.id, tagId: refund.id, confidence: 0.8123, reason: 'Asks for the money back.' },
      { companyId: company.id, conversationId: c.id, tagId: vip.id, confidence: 0.9, reason: 'Already attached.' },
    ]);
    await ConversationEvent.create({ companyId: company.id, conversationId: c.id, type: 'handoff_requested', source: 'visitor' });
    await ConversationEvent.create({ companyId: company.id, conversationId: c.id, type: 'human_connected', source: 'agent', userId: agent.id });
    await Note.create({ companyId: company.id, conversationId: c.id, userId: colleague.id, body: 'Called her' });
    await Note.create({ companyId: company.id, conversationId: c.id, userId: gone.id, body: 'By someone since removed' });
    await gone.destroy();
    const lead = await Lead.create({ companyId: company.id, conversationId: c.id, name: 'Ada', status: 'contacted' });

    const reply = await open(token, c);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const { active } = reply.body;
    assert.deepEqual(
      active.messages.map((m: { content: string }) => m.content),
      Array.from({ length: THREAD_MESSAGES }, (_, i) => `line ${i + 5}`),
      'the newest lines, oldest first',
    );
    assert.deepEqual(active.messages.find((m: { content: string }) => m.content === 'line 7').rating, 'up');
    assert.deepEqual(active.events.map((e: { type: string; source: string }) => `${e.type}/${e.source}`), ['handoff_requested/visitor', 'human_connected/agent']);
    assert.deepEqual(active.tags, [
      { id: vip.id, name: 'vip', color: '#00ff00', source: 'agent' },
      { id: billing.id, name: 'billing', color: '#0000ff', source: 'ai' },
    ]);
    assert.deepEqual(active.tag_suggestions, [{ id: refund.id, name: 'refund', confidence: 0.81, reason: 'Asks for the money back.' }], 'an attached tag is not suggested');
    assert.deepEqual(active.notes.map((n: { body: string; author: string }) => [n.body, n.author]), [['Called her', 'Colleague'], ['By someone since removed', '']]);
    assert.deepEqual(
      active.journey.map((view: { url: string }) => view.url),
      Array.from({ length: 20 }, (_, i) => `https://shop.example/p${i + 5}`),
      'the last 20 page views, oldest first',
    );
    assert.deepEqual(
      [active.page, active.referrer, active.entry_page, active.country, active.page_views, active.joined, active.last_seen],
      ['https://shop.example/cart', 'https://ref.example/', 'https://shop.example/p5', 'DE', 25, 'Nov 20, 2026', 'Nov 21, 2026 09:30'],
    );
    assert.deepEqual([active.phone, active.summary, active.revenue_cents, active.revenue_amount, active.revenue_label], ['+31 6 1234 5678', 'Wants a refund', 12345, 123.45, '€123.45']);
    assert.deepEqual([active.lead_id, active.lead_status], [lead.id, 'contacted']);
  });

  it('without a visitor row: the page and referrer the widget sent with the conversation, no journey', async () => {
    const { token, bot } = await agentTenant();
    const c = await make.conversation(bot, { messages: [['visitor', 'Hello']] });
    await c.update({ meta: { page_url: 'https://shop.example/meta', referrer: 'https://ref.example/' } });
    const { active } = (await open(token, c)).body;
    assert.deepEqual(
      [active.page, active.referrer, active.entry_page, active.journey, active.last_seen, active.page_views, active.online, active.lead_id, active.tag_suggestions],
      ['https://shop.example/meta', 'https://ref.example/', '', [], '', 0, false, null, []],
    );
    assert.equal(active.joined.length > 0, true);
  });

  it('two agents opening the same unread thread at once both see it read, in the thread, the list and the counts', async () => {
    const { token, company, bot } = await agentTenant();
    const colleagueToken = await make.token(await make.user(company, 'agent'), 'agent');
    const c = await make.conversation(bot, { messages: [['visitor', 'Anyone there?']] });
    await c.update({ unreadCount: 3 });
    const replies = await Promise.all([open(token, c), open(colleagueToken, c)]);
    for (const reply of replies) {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.active.id, c.publicId);
      assert.deepEqual(reply.body.active.messages.map((m: { content: string }) => m.content), ['Anyone there?']);
      assert.equal(reply.body.conversations.find((item: { id: string }) => item.id === c.publicId).unread, 0);
      assert.equal(reply.body.counts.unread, 0);
    }
    assert.equal((await c.reload()).unreadCount, 0);
  });
});
