import { strict as assert } from 'node:assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Conversation } from '../../src/models';
import { launchBrowser, sendInWidget, startBrowserNode, stopBrowserNode, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import type { Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';

const SIGN_IN = 'Please sign in to chat with us.';

/** A page of the shop in a browser context of its own (its own storage: another device), signed in with `token` when given. */
async function shopPage(context: BrowserContext, url: string, token?: string): Promise<Page> {
  const page = await context.newPage();
  // As a site's template would print it: the token its server signed for the signed-in customer.
  if (token) await page.addInitScript(`window.ParleySettings = { identity: ${JSON.stringify(token)} };`);
  await page.goto(url);
  await widget(page, '[data-parley="launcher"]').click();
  return page;
}

const storedConversation = (page: Page) => page.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);

describe('widget.js identity in real Chromium', function () {
  this.timeout(120_000);
  let node: Running;
  let browser: Browser;
  let site: TestSite;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  let secret: string;
  const contexts: BrowserContext[] = [];

  const token = (claims: Record<string, unknown>) => make.identityToken(secret, { exp: Math.floor(Date.now() / 1000) + 3600, ...claims });
  const device = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    return context;
  };

  before(async () => {
    let base: string;
    ({ node, base } = await startBrowserNode('browser-identity'));
    const tenant = await make.workspace();
    bot = await make.chatbot(tenant.company);
    await bot.update({ prechat: { ...bot.prechat, identity_required: true } });
    await make.providerKey(tenant.company, bot.provider);
    secret = await make.chatbotIdentitySecret(bot);
    site = await startSite({ '/': html(`<h1>Fjord Shop</h1><script src="${base}/widget.js" data-key="${bot.publicKey}" defer></script>`, '<title>Fjord Shop</title>') });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
  });
  beforeEach(() => fakeLlm().reset());

  it('asks a visitor to sign in until the page calls Parley.identify, then chats as the verified customer', async () => {
    const page = await shopPage(await device(), site.url('/'));
    await widget(page, '.signin').filter({ hasText: SIGN_IN }).waitFor();
    assert.equal(await widget(page, '[data-parley="composer"]').isVisible(), false, 'no composer before identify');

    fakeLlm().script({ reply: 'Welcome back, Grace.' });
    await page.evaluate(`window.Parley.identify(${JSON.stringify(token({ sub: 'cust-grace', name: 'Grace' }))})`);
    await widget(page, '[data-parley="composer"]').waitFor();
    assert.equal(await widget(page, '.signin').filter({ hasText: SIGN_IN }).isVisible(), false);
    await sendInWidget(page, 'Where is my order?');
    await widgetMessages(page, 'assistant').filter({ hasText: 'Welcome back, Grace.' }).waitFor({ timeout: 15_000 });
    const stored = await Conversation.findOne({ where: { publicId: (await storedConversation(page))! } });
    assert.deepEqual([stored?.identitySub, stored?.visitorName], ['cust-grace', 'Grace']);
  });

  it("shows the server's refusal of a bad token instead of the composer", async () => {
    const expired = make.identityToken(secret, { sub: 'cust-late', exp: Math.floor(Date.now() / 1000) - 60 });
    const page = await shopPage(await device(), site.url('/'), expired);
    await widget(page, '[data-parley="identity-refused"]').filter({ hasText: 'could not confirm that you are signed in' }).waitFor({ timeout: 15_000 });
    assert.equal(await widget(page, '[data-parley="composer"]').isVisible(), false);
    assert.equal(fakeLlm().requests.length, 0);
  });

  it('shows a signed-in customer their conversation on another device, where it continues', async () => {
    const identity = token({ sub: 'cust-ann', name: 'Ann' });
    fakeLlm().script({ reply: 'It ships tomorrow.' });
    const laptop = await shopPage(await device(), site.url('/'), identity);
    await widget(laptop, '[data-parley="composer"]').waitFor();
    await sendInWidget(laptop, 'When does my order ship?');
    await widgetMessages(laptop, 'assistant').filter({ hasText: 'It ships tomorrow.' }).waitFor({ timeout: 15_000 });
    const conversationId = await storedConversation(laptop);

    // Another browser profile: no storage shared with the laptop, a visitor id of its own.
    const phone = await shopPage(await device(), site.url('/'), identity);
    await widgetMessages(phone, 'visitor').filter({ hasText: 'When does my order ship?' }).waitFor({ timeout: 15_000 });
    await widgetMessages(phone, 'assistant').filter({ hasText: 'It ships tomorrow.' }).waitFor();
    assert.equal(await storedConversation(phone), conversationId);

    fakeLlm().script({ reply: 'Yes, to the same address.' });
    await sendInWidget(phone, 'Same address as last time?');
    await widgetMessages(phone, 'assistant').filter({ hasText: 'Yes, to the same address.' }).waitFor({ timeout: 15_000 });
    assert.equal(await Conversation.count({ where: { chatbotId: bot.id, identitySub: 'cust-ann' } }), 1, 'one conversation, continued');
    // The widget shows the answer as it streams; it is stored just after the last piece, before `done`.
    const stored = await eventually(() => Conversation.findOne({ where: { publicId: conversationId! } }), (row) => row?.messageCount === 4);
    assert.equal(stored?.messageCount, 4);
  });
});
