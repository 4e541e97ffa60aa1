import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { CannedReply, Conversation, ConversationTag, Message, Note } from '../../src/models';
import { createCannedReply } from '../../src/domain/catalogue/createCannedReply';
import { createTag } from '../../src/domain/catalogue/createTag';
import { revokeSessions } from '../../src/domain/accounts/tokens';
import { openWidget, sendInWidget, shopSuite, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import { fakeLlm } from '../support/hooks';
import * as make from '../support/factories';


const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('web inbox in real Chromium', function () {
  this.timeout(120_000);
  let tenant: Awaited<ReturnType<typeof make.workspace>>;
  let agent: Awaited<ReturnType<typeof make.user>>;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  const pageErrors: string[] = [];

  const shop = shopSuite('inbox-browser-node', () => bot.publicKey);
  beforeEach(async () => {
    fakeLlm().reset();
    pageErrors.length = 0;
    tenant = await make.workspace();
    agent = await make.user(tenant.company, 'agent', 'Sam Agent');
    bot = await make.chatbot(tenant.company);
    await bot.update({ branding: { ...bot.branding, live_visitors: true } });
    await make.providerKey(tenant.company, bot.provider);
  });
  afterEach(() => assert.deepEqual(pageErrors, [], 'no script errors in any page'));

  /** A fresh browser context (its own localStorage), with script errors collected. */
  async function newPage(): Promise<Page> {
    const page = await shop.browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  }

  /** Page A: the agent signs in through the form and waits until the inbox is live. */
  async function signIn(path = '/inbox'): Promise<Page> {
    const page = await newPage();
    await page.goto(`${shop.base}${path}`);
    await page.getByLabel('Email').fill(agent.email);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#connection[data-online="true"]').waitFor({ timeout: 15_000 });
    return page;
  }


  const thread = (page: Page, role: string) => page.locator(`#messages li[data-role="${role}"]:not([data-live])`);

  it('takes over a conversation a visitor is having in the widget, live in both pages, and the AI stays silent', async () => {
    const inbox = await signIn();
    assert.equal(await inbox.evaluate<string>(`typeof localStorage.getItem('parley.agent.token')`), 'string', 'the token is kept for the next visit');
    await inbox.locator('#list li.empty').filter({ hasText: 'No open conversations.' }).waitFor();

    const visitor = await newPage();
    fakeLlm().script({ reply: 'We ship to Norway within five days.', delayMs: 20 });
    await openWidget(visitor, shop.site.url('/'));
    await sendInWidget(visitor, 'Do you ship to Norway?');
    await widgetMessages(visitor, 'assistant').filter({ hasText: 'We ship to Norway within five days.' }).waitFor({ timeout: 15_000 });
    const conversationId = await visitor.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);
    assert.ok(conversationId);

    // No reload, no poll: the row arrives over the socket.
    const row = inbox.locator(`#list li[data-id="${conversationId}"]`);
    await row.filter({ hasText: 'We ship to Norway within five days.' }).waitFor({ timeout: 10_000 });
    await row.locator('a').click();
    assert.equal(new URL(inbox.url()).pathname, `/inbox/conversations/${conversationId}`);
    await thread(inbox, 'visitor').filter({ hasText: 'Do you ship to Norway?' }).waitFor();
    await thread(inbox, 'assistant').filter({ hasText: 'We ship to Norway within five days.' }).waitFor();
    assert.match((await inbox.locator('#thread-sub').textContent()) ?? '', /The AI is answering/);

    await inbox.locator('[data-action="takeover"]').click();
    await inbox.locator('#thread-sub').filter({ hasText: 'You are handling this chat' }).waitFor();
    await inbox.locator('[data-action="release"]').waitFor();
    const held = await Conversation.findOne({ where: { publicId: conversationId } });
    assert.deepEqual([held?.status, held?.handoffState, held?.assignedUserId], ['agent', 'human_connected', agent.id]);

    await inbox.locator('#draft').fill('Hi, Sam here. Which town in Norway?');
    await inbox.locator('#draft').press('Enter');
    await thread(inbox, 'agent').filter({ hasText: 'Hi, Sam here. Which town in Norway?' }).waitFor();
    assert.equal(await inbox.locator('#draft').inputValue(), '', 'the draft is cleared once sent');
    await widgetMessages(visitor, 'agent').filter({ hasText: 'Hi, Sam here. Which town in Norway?' }).waitFor({ timeout: 10_000 });

    const requestsBefore = fakeLlm().requests.length;
    await sendInWidget(visitor, 'Tromsø, please.');
    await thread(inbox, 'visitor').filter({ hasText: 'Tromsø, please.' }).waitFor({ timeout: 10_000 });
    const announced = await eventually(() => inbox.locator('#announce').textContent(), (text) => /Tromsø, please\./.test(text ?? ''));
    assert.match(announced ?? '', /says: Tromsø, please\./, 'screen readers hear the new line');
    // Held: no AI call, no AI line, in the database or on either screen.
    await pause(1500);
    assert.equal(fakeLlm().requests.length, requestsBefore);
    const stored = await Message.findAll({ where: { conversationId: held!.id }, order: [['id', 'ASC']] });
    assert.deepEqual(stored.map((m) => m.role), ['visitor', 'assistant', 'agent', 'visitor']);
    assert.equal(await thread(inbox, 'assistant').count(), 1);
    assert.equal(await widgetMessages(visitor, 'assistant').count(), 1);
    assert.equal(await inbox.locator('#messages li').count(), 4, 'each line once, no duplicates from socket and fetch');
    await inbox.close();
    await visitor.close();
  });

  it('streams the AI answer into the open thread, renders text as text, and resolves', async () => {
    const hostile = '<img src=x onerror="window.__owned=1"><b>bold?</b>';
    const conversation = await make.conversation(bot, { messages: [['visitor', hostile]] });
    await conversation.update({ visitorName: 'Ines', lastMessagePreview: hostile });
    const inbox = await signIn(`/inbox/conversations/${conversation.publicId}`);
    await thread(inbox, 'visitor').filter({ hasText: hostile }).waitFor();
    assert.equal(await inbox.locator('#messages img, #messages b, #list img, #list b').count(), 0);
    assert.equal(await inbox.evaluate<number | undefined>('window.__owned'), undefined);
    assert.equal(await inbox.locator('#thread-title').textContent(), 'Ines');
    await inbox.locator('#messages[data-live="on"]').waitFor({ timeout: 10_000 });

    // The visitor's next message goes through the widget endpoint; the AI streams slowly enough to watch.
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    fakeLlm().script({ reply: words, delayMs: 120 });
    const answered = fetch(`${shop.base}/widget/${bot.publicKey}/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, message: 'Still there?' }),
    }).then((r) => r.text());
    await inbox.locator('#messages li[data-live="true"]').filter({ hasText: 'word0' }).waitFor({ timeout: 10_000 });
    assert.equal(await thread(inbox, 'assistant').count(), 0, 'still streaming');
    await answered;
    await thread(inbox, 'assistant').filter({ hasText: 'word29' }).waitFor({ timeout: 10_000 });
    await inbox.locator('#messages li[data-live]').waitFor({ state: 'detached' });

    await inbox.locator('[data-action="resolve"]').click();
    await inbox.locator('[data-action="reopen"]').waitFor();
    await inbox.locator('#thread-sub').filter({ hasText: 'Resolved' }).waitFor();
    assert.equal((await conversation.reload()).status, 'closed');
    await inbox.locator('button[data-filter="resolved"]').click();
    await inbox.locator(`#list li[data-id="${conversation.publicId}"]`).waitFor();
    assert.match(new URL(inbox.url()).search, /filter=resolved/);
    await inbox.close();
  });

  it('adds notes and tags, inserts canned replies, uses AI suggest and enhance', async () => {
    const urgent = await createTag(tenant.company.id, { name: `Urgent ${Date.now()}`, color: '#dc2626' });
    const canned = await createCannedReply(tenant.company.id, { title: 'Returns', shortcut: 'returns', body: 'You can return any item within 30 days.' });
    const conversation = await make.conversation(bot, { messages: [['visitor', 'Can I send it back?']] });
    const inbox = await signIn(`/inbox/conversations/${conversation.publicId}`);
    await thread(inbox, 'visitor').filter({ hasText: 'Can I send it back?' }).waitFor();

    await inbox.getByLabel('Add a tag').selectOption(String(urgent.id));
    await inbox.locator('#conversation-tags li').filter({ hasText: urgent.name }).waitFor();
    await inbox.locator(`#list li[data-id="${conversation.publicId}"] .tag`).filter({ hasText: urgent.name }).waitFor();
    assert.equal(await ConversationTag.count({ where: { conversationId: conversation.id, tagId: urgent.id } }), 1);
    await inbox.getByRole('button', { name: `Remove tag ${urgent.name}` }).click();
    await inbox.locator('#conversation-tags li').first().waitFor({ state: 'detached' });
    assert.equal(await ConversationTag.count({ where: { conversationId: conversation.id, tagId: urgent.id } }), 0);

    await inbox.getByLabel('Internal note').check();
    await inbox.locator('#draft').fill('Customer is a regular; be generous.');
    await inbox.getByRole('button', { name: 'Send' }).click();
    await inbox.locator('#notes li').filter({ hasText: 'Customer is a regular; be generous.' }).waitFor();
    assert.equal(await Note.count({ where: { conversationId: conversation.id } }), 1);
    assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 0, 'a note never reaches the visitor');
    await inbox.getByLabel('Reply', { exact: true }).check();

    await inbox.getByLabel('Insert a canned reply').selectOption(String(canned.id));
    assert.equal(await inbox.locator('#draft').inputValue(), canned.body);
    assert.equal((await eventually(() => CannedReply.findByPk(canned.id), (reply) => reply?.useCount === 1))?.useCount, 1, 'the use is counted');
    await inbox.locator('#draft').fill('');
    await inbox.locator('#draft').pressSequentially('/returns');
    await inbox.locator('#draft').press('Tab');
    assert.equal(await inbox.locator('#draft').inputValue(), canned.body, '/shortcut then Tab expands');

    fakeLlm().script({ reply: 'Of course, within 30 days.' });
    await inbox.locator('#draft').fill('');
    await inbox.getByRole('button', { name: 'Suggest' }).click();
    await inbox.locator('#suggestion-text').filter({ hasText: 'Of course, within 30 days.' }).waitFor();
    await inbox.getByRole('button', { name: 'Use it' }).click();
    assert.equal(await inbox.locator('#draft').inputValue(), 'Of course, within 30 days.');

    fakeLlm().script({ reply: 'Certainly, you may return it within 30 days.' });
    await inbox.getByLabel('Enhance mode').selectOption('professional');
    await inbox.getByRole('button', { name: 'Enhance' }).click();
    assert.equal(await eventually(() => inbox.locator('#draft').inputValue(), (value) => value === 'Certainly, you may return it within 30 days.'), 'Certainly, you may return it within 30 days.');
    assert.match(JSON.stringify(fakeLlm().requests.at(-1)?.body), /professional/i, 'the chosen mode reaches the model');
    await inbox.locator('#draft').press('Enter');
    await thread(inbox, 'agent').filter({ hasText: 'Certainly, you may return it within 30 days.' }).waitFor();
    assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 1);
    await inbox.close();
  });

  it('searches the list and loads more of it page by page', async () => {
    const at = (i: number) => new Date(Date.now() - (i + 1) * 60_000);
    const rows = await Conversation.bulkCreate(
      Array.from({ length: 65 }, (_, i) => ({ companyId: tenant.company.id, chatbotId: bot.id, visitorKey: `paged-${i}`, visitorName: `Paged ${i}`, lastMessageAt: at(i) })),
    );
    const marked = await make.conversation(bot, { lastMessageAt: at(100), messages: [['visitor', 'My parcel number is ZX-9041']] });
    const inbox = await signIn();
    const listed = inbox.locator('#list li[data-id]');
    await listed.nth(59).waitFor();
    assert.equal(await listed.count(), 60);
    await inbox.getByRole('button', { name: 'Load more' }).click();
    await listed.nth(65).waitFor();
    const shown = await Promise.all((await listed.all()).map((item) => item.getAttribute('data-id')));
    assert.deepEqual(shown, [...rows.map((row) => row.publicId), marked.publicId]);
    assert.equal(await inbox.getByRole('button', { name: 'Load more' }).isHidden(), true, 'nothing more to load');

    await inbox.getByRole('searchbox', { name: 'Search conversations' }).fill('zx-904');
    await inbox.locator(`#list li[data-id="${marked.publicId}"]`).waitFor();
    assert.equal(await eventually(() => listed.count(), (count) => count === 1), 1);
    await inbox.getByRole('searchbox', { name: 'Search conversations' }).fill('nothing like it');
    await inbox.locator('#list li.empty', { hasText: 'No conversation matches.' }).waitFor();
    await inbox.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    assert.equal(await eventually(() => listed.count(), (count) => count === 60), 60, 'back to the first page of everything');
    await inbox.close();
  });

  it('lists live visitors and invites one to chat', async () => {
    const visitor = await newPage();
    await visitor.goto(shop.site.url('/'));
    await widget(visitor, '[data-parley="launcher"]').waitFor();
    const visitorId = await eventually(
      () => visitor.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':visitor'))?.[1]`),
      (id) => typeof id === 'string',
    );
    assert.ok(visitorId, 'the widget made a visitor id');

    const inbox = await signIn();
    await inbox.getByRole('tab', { name: /Live visitors/ }).click();
    const row = inbox.locator(`#visitors-list li[data-visitor="${visitorId}"]`);
    await row.filter({ hasText: 'Fjord Shop' }).waitFor({ timeout: 10_000 });
    await row.getByRole('button', { name: 'Invite to chat' }).click();
    await inbox.getByLabel('Invitation message').fill('Hi! Looking for winter boots?');
    await inbox.getByRole('button', { name: 'Send invitation' }).click();

    await thread(inbox, 'agent').filter({ hasText: 'Hi! Looking for winter boots?' }).waitFor({ timeout: 10_000 });
    const created = await Conversation.findOne({ where: { companyId: tenant.company.id, visitorKey: visitorId! } });
    assert.ok(created);
    assert.deepEqual([created.status, created.assignedUserId, created.routedBy], ['agent', agent.id, 'invite']);
    assert.equal(new URL(inbox.url()).pathname, `/inbox/conversations/${created.publicId}`);

    // The invite waits for the visitor's next heartbeat; a page load sends one at once.
    await visitor.reload();
    await widget(visitor, '[data-parley="launcher"]').click();
    await widgetMessages(visitor, 'agent').filter({ hasText: 'Hi! Looking for winter boots?' }).waitFor({ timeout: 15_000 });
    await inbox.close();
    await visitor.close();
  });

  it('catches up over HTTP on reconnect with what happened while the connection was down', async () => {
    const conversation = await make.conversation(bot, { messages: [['visitor', 'First question']] });
    const inbox = await signIn(`/inbox/conversations/${conversation.publicId}`);
    await thread(inbox, 'visitor').filter({ hasText: 'First question' }).waitFor();

    await inbox.context().setOffline(true);
    await inbox.locator('#connection[data-online="false"]').waitFor({ timeout: 10_000 });
    fakeLlm().script({ reply: 'Answered while you were away.' });
    const stream = await fetch(`${shop.base}/widget/${bot.publicKey}/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ visitor_id: conversation.visitorKey, conversation_id: conversation.publicId, message: 'Anyone there?' }),
    }).then((r) => r.text());
    assert.match(stream, /event: done/);
    await pause(300);
    assert.equal(await thread(inbox, 'visitor').filter({ hasText: 'Anyone there?' }).count(), 0, 'nothing can arrive while offline');

    await inbox.context().setOffline(false);
    await inbox.locator('#connection[data-online="true"]').waitFor({ timeout: 15_000 });
    await thread(inbox, 'visitor').filter({ hasText: 'Anyone there?' }).waitFor({ timeout: 10_000 });
    await thread(inbox, 'assistant').filter({ hasText: 'Answered while you were away.' }).waitFor();
    await inbox.close();
  });

  it('sends the agent back to the sign-in form as soon as their sessions are revoked elsewhere', async () => {
    const inbox = await signIn();
    await revokeSessions(agent.id);
    await inbox.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
    await inbox.locator('#login-error').filter({ hasText: 'Your session has ended. Sign in again.' }).waitFor();
    await inbox.close();
  });

  it('sends a signed-out agent back to the sign-in form', async () => {
    const inbox = await signIn();
    await inbox.getByRole('button', { name: 'Sign out' }).click();
    await inbox.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await inbox.evaluate<string | null>(`localStorage.getItem('parley.agent.token')`), null);
    await inbox.getByLabel('Email').fill(agent.email);
    await inbox.getByLabel('Password').fill('wrong-password');
    await inbox.getByRole('button', { name: 'Sign in' }).click();
    await inbox.locator('#login-error').filter({ hasText: /./ }).waitFor();
    assert.equal(await inbox.locator('#app').isHidden(), true);
    await inbox.close();
  });
});
