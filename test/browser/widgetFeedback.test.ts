import { strict as assert } from 'node:assert';
import { Conversation, Message } from '../../src/models';
import { openWidget, sendInWidget, shopSuite, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import { newPage, signInInbox, threadLines } from '../support/inboxPage';

describe('widget in real Chromium: answer feedback, dark mode, agent typing', function () {
  this.timeout(120_000);
  let tenant: Awaited<ReturnType<typeof make.workspace>>;
  let agent: Awaited<ReturnType<typeof make.user>>;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  const errors: string[] = [];

  const shop = shopSuite('widget-feedback-node', () => bot.publicKey);
  beforeEach(async () => {
    fakeLlm().reset();
    errors.length = 0;
    tenant = await make.workspace();
    agent = await make.user(tenant.company, 'agent', 'Sam Agent');
    bot = await make.chatbot(tenant.company);
    await make.providerKey(tenant.company, bot.provider);
  });
  afterEach(() => assert.deepEqual(errors, [], 'no script errors in any page'));

  const conversationOf = (page: Awaited<ReturnType<typeof newPage>>) =>
    page.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);

  it('rates an AI answer with thumbs up or down; the agent sees it live in the inbox; the choice survives a reload', async () => {
    const visitor = await newPage(shop.browser, errors);
    fakeLlm().script({ reply: 'We ship to Norway within five days.' });
    await openWidget(visitor, shop.site.url('/'));
    await sendInWidget(visitor, 'Do you ship to Norway?');
    const answer = widgetMessages(visitor, 'assistant').filter({ hasText: 'We ship to Norway within five days.' });
    await answer.waitFor({ timeout: 15_000 });
    const up = answer.getByRole('button', { name: 'Helpful', exact: true });
    const down = answer.getByRole('button', { name: 'Not helpful' });
    assert.equal(await widget(visitor, '[data-parley="message"][data-role="visitor"] [data-parley="feedback"]').count(), 0, 'only AI answers are rated');
    await up.click();
    await answer.locator('button[data-rating="up"][aria-pressed="true"]').waitFor();
    const conversationId = await conversationOf(visitor);
    const conversation = await Conversation.findOne({ where: { publicId: conversationId! } });
    const stored = async () => (await Message.findOne({ where: { conversationId: conversation!.id, role: 'assistant' } }))?.rating;
    assert.equal(await eventually(stored, (rating) => rating === 'up'), 'up');

    const inbox = await signInInbox(await newPage(shop.browser, errors), `${shop.base}/inbox/conversations/${conversationId}`, agent.email);
    await threadLines(inbox, 'assistant').locator('.rating').filter({ hasText: 'found this helpful' }).waitFor({ timeout: 10_000 });
    await down.click();
    await answer.locator('button[data-rating="down"][aria-pressed="true"]').waitFor();
    assert.equal(await answer.locator('button[data-rating="up"]').getAttribute('aria-pressed'), 'false');
    // No reload in the inbox: the rating is a conversation write, and conversation.updated brings it.
    await threadLines(inbox, 'assistant').locator('.rating').filter({ hasText: 'found this unhelpful' }).waitFor({ timeout: 10_000 });
    assert.equal(await stored(), 'down');

    await visitor.reload();
    // The panel stays open across a reload (per tab); open() makes sure without toggling it.
    await widget(visitor, '[data-parley="launcher"]').waitFor();
    await visitor.evaluate('window.Parley.open()');
    await answer.locator('button[data-rating="down"][aria-pressed="true"]').waitFor({ timeout: 15_000 });
    await inbox.close();
    await visitor.close();
  });

  it('follows the visitor’s dark mode with a neutral theme, live; a fixed theme stays as chosen', async () => {
    const visitor = await newPage(shop.browser, errors, { colorScheme: 'dark' });
    await openWidget(visitor, shop.site.url('/'));
    const root = widget(visitor, '.pw');
    assert.equal(await root.getAttribute('data-scheme'), 'dark', 'the default theme (minimal) follows the system');
    // The panel, bubbles and bars are painted from these variables.
    const background = async () => /--bg:\s*(#[0-9a-f]+)/i.exec((await root.getAttribute('style')) ?? '')?.[1];
    assert.equal(await background(), '#18181b');
    await visitor.emulateMedia({ colorScheme: 'light' });
    assert.equal(await eventually(() => root.getAttribute('data-scheme'), (scheme) => scheme === 'light'), 'light', 'switches when the system does');
    assert.equal(await background(), '#ffffff');
    await visitor.close();

    await bot.update({ branding: { ...bot.branding, theme: 'ocean' } });
    const fixed = await newPage(shop.browser, errors, { colorScheme: 'dark' });
    await openWidget(fixed, shop.site.url('/'));
    assert.equal(await widget(fixed, '.pw').getAttribute('data-scheme'), 'light', 'ocean is the operator’s choice');
    await fixed.close();
  });

  it('shows "<agent> is typing…" while the agent writes in the inbox', async () => {
    const visitor = await newPage(shop.browser, errors);
    fakeLlm().script({ reply: 'A person will help you.' });
    await openWidget(visitor, shop.site.url('/'));
    await sendInWidget(visitor, 'Can a person help?');
    await widgetMessages(visitor, 'assistant').filter({ hasText: 'A person will help you.' }).waitFor({ timeout: 15_000 });
    const conversationId = await conversationOf(visitor);

    const inbox = await signInInbox(await newPage(shop.browser, errors), `${shop.base}/inbox/conversations/${conversationId}`, agent.email);
    await inbox.locator('[data-action="takeover"]').click();
    await inbox.locator('[data-action="release"]').waitFor();
    await inbox.locator('#draft').pressSequentially('Hello, Sam h');
    await widget(visitor, '.agent-typing').filter({ hasText: 'Sam Agent is typing' }).waitFor({ timeout: 10_000 });
    await inbox.locator('#draft').pressSequentially('ere.');
    await inbox.locator('#draft').press('Enter');
    await widgetMessages(visitor, 'agent').filter({ hasText: 'Hello, Sam here.' }).waitFor({ timeout: 10_000 });
    await widget(visitor, '.agent-typing').waitFor({ state: 'hidden' });
    await inbox.close();
    await visitor.close();
  });
});
