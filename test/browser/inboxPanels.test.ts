import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { createTag } from '../../src/domain/catalogue/createTag';
import { Conversation, ConversationTag, Message, TagSuggestion } from '../../src/models';
import { seriousA11yProblems } from '../support/axe';
import { openWidget, sendInWidget, shopSuite, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import { newPage, signInInbox, threadLines } from '../support/inboxPage';

const PHONE = { width: 390, height: 844 };

describe('web inbox in real Chromium: every panel, phones and tablets, accessibility', function () {
  this.timeout(120_000);
  let tenant: Awaited<ReturnType<typeof make.workspace>>;
  let agent: Awaited<ReturnType<typeof make.user>>;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  const errors: string[] = [];

  const shop = shopSuite('inbox-panels-node', () => bot.publicKey, {
    // The demo workspace is on for this node, so `/` is the demo page with its widget.
    env: { PARLEY_DEMO: '1' },
    body: '<main><h1>Fjord Shop</h1></main>',
    head: '<meta name="viewport" content="width=device-width, initial-scale=1">',
  });
  beforeEach(async () => {
    fakeLlm().reset();
    errors.length = 0;
    tenant = await make.workspace();
    agent = await make.user(tenant.company, 'agent', 'Sam Agent');
    bot = await make.chatbot(tenant.company);
    await make.providerKey(tenant.company, bot.provider);
  });
  afterEach(() => assert.deepEqual(errors, [], 'no script errors in any page'));

  const inboxAt = async (path: string, options = {}, who = agent): Promise<Page> => signInInbox(await newPage(shop.browser, errors, options), `${shop.base}${path}`, who.email);

  it('summary with intent, customer context, tag suggestions (apply, dismiss), revenue, lead, block and unblock, watchers', async () => {
    const conversation = await make.conversation(bot, { messages: [['visitor', 'I want to return my boots, they are too small.']] });
    await conversation.update({ visitorName: 'Ines', visitorEmail: 'ines@example.test' });
    const [returns, sizing] = await Promise.all([createTag(tenant.company.id, { name: `Returns ${Date.now()}` }), createTag(tenant.company.id, { name: `Sizing ${Date.now()}` })]);
    await TagSuggestion.bulkCreate([
      { companyId: tenant.company.id, conversationId: conversation.id, tagId: returns.id, confidence: 0.9, reason: 'asks to return' },
      { companyId: tenant.company.id, conversationId: conversation.id, tagId: sizing.id, confidence: 0.6, reason: 'mentions size' },
    ]);
    const inbox = await inboxAt(`/inbox/conversations/${conversation.publicId}`);
    await threadLines(inbox, 'visitor').first().waitFor();

    await inbox.locator('#customer').filter({ hasText: 'ines@example.test (typed)' }).waitFor();
    assert.match((await inbox.locator('#customer').textContent()) ?? '', /typed by the visitor, not verified/);

    await inbox.getByRole('button', { name: `Dismiss suggested tag ${sizing.name}` }).click();
    await inbox.getByRole('button', { name: `Apply suggested tag ${sizing.name}` }).waitFor({ state: 'detached' });
    await inbox.getByRole('button', { name: `Apply suggested tag ${returns.name}` }).click();
    await inbox.locator('#conversation-tags li').filter({ hasText: returns.name }).waitFor();
    assert.equal(await ConversationTag.count({ where: { conversationId: conversation.id, tagId: returns.id } }), 1);
    assert.equal(await ConversationTag.count({ where: { conversationId: conversation.id, tagId: sizing.id } }), 0, 'dismissing attaches nothing');

    fakeLlm().script({ reply: 'Ines wants to return boots that are too small.\nIntent: cancellation' });
    await inbox.getByRole('button', { name: 'Summarise' }).click();
    await inbox.locator('#summary .summary').filter({ hasText: 'Ines wants to return boots that are too small.' }).waitFor();
    assert.equal(await inbox.locator('#intent').textContent(), 'cancellation');

    await inbox.getByLabel('Revenue amount').fill('49.50');
    await inbox.getByLabel('Currency').fill('EUR');
    await inbox.getByRole('button', { name: 'Save revenue' }).click();
    await inbox.locator('#toast').filter({ hasText: 'Revenue saved.' }).waitFor();
    const saved = await Conversation.findByPk(conversation.id);
    assert.deepEqual([Number(saved?.revenueCents), saved?.revenueCurrency], [4950, 'EUR']);

    await inbox.getByRole('button', { name: 'Save as lead' }).click();
    await inbox.locator('#deal').filter({ hasText: /Lead #\d+ \(new\)/ }).waitFor();

    await inbox.getByRole('button', { name: 'Block visitor', exact: true }).click();
    await inbox.locator('#safety').filter({ hasText: 'Blocked: the visitor cannot write in this chat.' }).waitFor();
    assert.equal((await conversation.reload()).blocked, true);
    await inbox.getByRole('button', { name: 'Unblock visitor' }).click();
    await inbox.getByRole('button', { name: 'Block visitor', exact: true }).waitFor();
    assert.equal((await conversation.reload()).blocked, false);

    const colleague = await make.user(tenant.company, 'agent', 'Kim Colleague');
    const second = await inboxAt(`/inbox/conversations/${conversation.publicId}`, {}, colleague);
    await inbox.locator('#watchers').filter({ hasText: 'Also open by Kim Colleague' }).waitFor({ timeout: 10_000 });
    await second.close();
    await inbox.locator('#watchers').waitFor({ state: 'detached', timeout: 10_000 });
    await inbox.close();
  });

  it('says why AI assist did nothing, and what to do, when no provider key is set up', async () => {
    const bare = await make.workspace();
    const sam = await make.user(bare.company, 'agent', 'Sam Bare');
    const conversation = await make.conversation(await make.chatbot(bare.company), { messages: [['visitor', 'Where is my parcel?']] });
    const inbox = await inboxAt(`/inbox/conversations/${conversation.publicId}`, {}, sam);
    await inbox.getByRole('button', { name: 'Suggest' }).click();
    await inbox.locator('#toast').filter({ hasText: 'No suggestion: no AI provider key is set up. An admin adds a provider key in the portal' }).waitFor();
    await inbox.locator('#draft').fill('helo, we wil send it tmrw');
    await inbox.getByRole('button', { name: 'Enhance' }).click();
    await inbox.locator('#toast').filter({ hasText: 'The draft was not enhanced: no AI provider key is set up.' }).waitFor();
    assert.equal(await inbox.locator('#draft').inputValue(), 'helo, we wil send it tmrw', 'the draft is left alone');
    await inbox.close();
  });

  it('works on a phone (390 x 844): list, thread, composer, details drawer; on a tablet the details open as a drawer', async () => {
    const conversation = await make.conversation(bot, { messages: [['visitor', 'Hi from my phone']] });
    await conversation.update({ visitorName: 'Pia' });
    const phone = await inboxAt('/inbox', { viewport: PHONE, isMobile: true, hasTouch: true });
    const row = phone.locator(`#list li[data-id="${conversation.publicId}"] a`);
    await row.waitFor();
    assert.equal(await phone.locator('#thread-body').isVisible(), false);
    await row.click();
    await threadLines(phone, 'visitor').filter({ hasText: 'Hi from my phone' }).waitFor();
    assert.equal(await phone.locator('#list').isVisible(), false, 'one column at a time');
    const width = (await phone.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(width <= PHONE.width, `no sideways scrolling (${width} px)`);
    await phone.locator('[data-action="takeover"]').click();
    await phone.locator('[data-action="release"]').waitFor();
    await phone.locator('#draft').fill('Hello Pia!');
    await phone.getByRole('button', { name: 'Send' }).click();
    await threadLines(phone, 'agent').filter({ hasText: 'Hello Pia!' }).waitFor();
    await phone.getByRole('button', { name: 'Details' }).click();
    await phone.locator('#details .visitor-name').filter({ hasText: 'Pia' }).waitFor();
    assert.equal(await phone.evaluate('document.activeElement.id'), 'close-details', 'focus moves into the drawer');
    await phone.keyboard.press('Escape');
    await phone.locator('#details').waitFor({ state: 'hidden' });
    await phone.getByRole('button', { name: '← Conversations' }).click();
    await row.waitFor();
    await phone.close();

    const tablet = await inboxAt(`/inbox/conversations/${conversation.publicId}`, { viewport: { width: 820, height: 1180 } });
    await threadLines(tablet, 'visitor').first().waitFor();
    assert.equal(await tablet.locator('#details').isVisible(), false, 'below 900 px the details wait in a drawer');
    assert.equal(await tablet.locator('#list').isVisible(), true, 'the list stays beside the thread');
    await tablet.getByRole('button', { name: 'Details' }).click();
    await tablet.locator('#details .visitor-name').waitFor();
    await tablet.getByRole('button', { name: 'Close details' }).click();
    await tablet.locator('#details').waitFor({ state: 'hidden' });
    await tablet.close();

    const visitor = await newPage(shop.browser, errors, { viewport: PHONE, isMobile: true, hasTouch: true });
    fakeLlm().script({ reply: 'Yes, on phones too.' });
    await openWidget(visitor, shop.site.url('/'));
    await sendInWidget(visitor, 'Does this work on phones?');
    await widgetMessages(visitor, 'assistant').filter({ hasText: 'Yes, on phones too.' }).waitFor({ timeout: 15_000 });
    const panel = (await widget(visitor, '[data-parley="panel"]').boundingBox())!;
    assert.deepEqual([Math.round(panel.width), Math.round(panel.height)], [PHONE.width, PHONE.height], 'the panel takes the whole screen');
    await visitor.close();
  });

  it('axe finds no critical or serious problem: demo page with the widget open, inbox list, open conversation, settings', async () => {
    const demo = await newPage(shop.browser, errors);
    await demo.goto(`${shop.base}/`);
    await widget(demo, '[data-parley="launcher"]').click();
    await widget(demo, '[data-parley="composer"]').waitFor();
    assert.deepEqual(await seriousA11yProblems(demo), [], 'demo page with the widget open');
    await demo.close();

    const conversation = await make.conversation(bot, { messages: [['visitor', 'Hello'], ['assistant', 'Hi! How can I help?']] });
    const inbox = await inboxAt('/inbox');
    await inbox.locator(`#list li[data-id="${conversation.publicId}"]`).waitFor();
    assert.deepEqual(await seriousA11yProblems(inbox), [], 'inbox list');
    await inbox.locator(`#list li[data-id="${conversation.publicId}"] a`).click();
    await threadLines(inbox, 'assistant').first().waitFor();
    await inbox.locator('#customer h3 ~ *').first().waitFor();
    assert.deepEqual(await seriousA11yProblems(inbox), [], 'open conversation');
    await inbox.getByRole('button', { name: 'Notifications' }).click();
    await inbox.locator('#push-state').waitFor();
    assert.deepEqual(await seriousA11yProblems(inbox), [], 'settings screen');
    await inbox.close();
  });

  it('works with the keyboard only: the widget and the inbox composer', async () => {
    const visitor = await newPage(shop.browser, errors);
    await visitor.goto(shop.site.url('/'));
    await widget(visitor, '[data-parley="launcher"]').waitFor();
    const focusedInWidget = () => visitor.evaluate(`document.activeElement?.id === 'parley-widget' ? document.activeElement.shadowRoot.activeElement?.getAttribute('data-parley') : null`);
    for (let i = 0; i < 10 && (await focusedInWidget()) !== 'launcher'; i++) await visitor.keyboard.press('Tab');
    assert.equal(await focusedInWidget(), 'launcher', 'Tab reaches the launcher');
    await visitor.keyboard.press('Enter');
    assert.equal(await eventually(focusedInWidget, (focus) => focus === 'composer'), 'composer', 'opening moves focus to the composer');
    fakeLlm().script({ reply: 'Typed without a mouse.' });
    await visitor.keyboard.type('Hello from the keyboard');
    await visitor.keyboard.press('Enter');
    const answer = widgetMessages(visitor, 'assistant').filter({ hasText: 'Typed without a mouse.' });
    await answer.waitFor({ timeout: 15_000 });
    await answer.locator('button[data-rating="up"]').focus();
    await visitor.keyboard.press('Enter');
    await answer.locator('button[data-rating="up"][aria-pressed="true"]').waitFor();
    await visitor.keyboard.press('Escape');
    assert.equal(await eventually(focusedInWidget, (focus) => focus === 'launcher'), 'launcher', 'Escape closes and gives focus back');
    await visitor.close();

    const conversation = await make.conversation(bot, { messages: [['visitor', 'Keyboard please']] });
    const page = await newPage(shop.browser, errors);
    await page.goto(`${shop.base}/inbox`);
    await page.keyboard.type(agent.email); // the email field has focus
    await page.keyboard.press('Tab');
    await page.keyboard.type('password-123');
    await page.keyboard.press('Enter');
    await page.locator('#connection[data-online="true"]').waitFor({ timeout: 15_000 });
    await page.locator(`#list li[data-id="${conversation.publicId}"]`).waitFor();
    await page.keyboard.press('j');
    await threadLines(page, 'visitor').filter({ hasText: 'Keyboard please' }).waitFor();
    await page.keyboard.press('r');
    assert.equal(await page.evaluate('document.activeElement.id'), 'draft');
    await page.keyboard.type('Answered with keys only.');
    await page.keyboard.press('Enter');
    await threadLines(page, 'agent').filter({ hasText: 'Answered with keys only.' }).waitFor();
    assert.equal(await Message.count({ where: { conversationId: conversation.id, role: 'agent' } }), 1);
    await page.close();
  });
});
