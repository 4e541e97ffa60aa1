import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Message } from '../../src/models';
import { launchBrowser, openWidget, sendInWidget, startBrowserNode, stopBrowserNode, widgetMessages } from '../support/browser';
import * as make from '../support/factories';
import { fakeLlm } from '../support/hooks';
import { newPage, signInInbox, threadLines } from '../support/inboxPage';
import type { Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';

/**
 * The pictures in docs/inbox.md and docs/widget.md, taken with the browser tests' own set-up (a web
 * node on its real URL, the fake LLM, a customer site). `npm run screenshots` sets
 * SCREENSHOTS=docs/images to write them there; in the test run they go to a temporary folder and are
 * only checked to be pictures, so the set-up cannot rot unnoticed.
 */
const TARGET = process.env.SCREENSHOTS ? resolve(process.env.SCREENSHOTS) : null;

describe('screenshots for the docs (inbox desktop and phone, widget)', function () {
  this.timeout(120_000);
  let node: Running;
  let base: string;
  let browser: Browser;
  let site: TestSite;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  let agent: Awaited<ReturnType<typeof make.user>>;
  let folder: string;
  const errors: string[] = [];

  before(async () => {
    ({ node, base } = await startBrowserNode('screenshots-node'));
    const tenant = await make.workspace({ name: 'Fjord Outdoor' });
    agent = await make.user(tenant.company, 'agent', 'Sam Agent');
    bot = await make.chatbot(tenant.company);
    await make.providerKey(tenant.company, bot.provider);
    site = await startSite({
      '/': html(
        `<main style="font:16px system-ui;padding:2rem"><h1>Fjord Outdoor</h1><p>Boots, tents and jackets for the north.</p></main><script src="${base}/widget.js" data-key="${bot.publicKey}" defer></script>`,
        '<title>Fjord Outdoor</title><meta name="viewport" content="width=device-width, initial-scale=1">',
      ),
    });
    browser = await launchBrowser();
    folder = TARGET ?? mkdtempSync(join(tmpdir(), 'parley-shots-'));
    // A believable inbox: a few conversations, one rated answer.
    const people: Array<[string, string, string]> = [
      ['Ines Berg', 'Can I return boots bought online in a store?', 'Yes: any store takes returns within 30 days, with the receipt or the order number.'],
      ['Tom Hale', 'Is the Arctic tent waterproof?', 'It is rated 5,000 mm and taped at every seam.'],
      ['Mia Lund', 'Where is my order #1042?', 'It left our warehouse yesterday and arrives tomorrow.'],
    ];
    for (const [name, question, answer] of people) {
      const conversation = await make.conversation(bot, { messages: [['visitor', question], ['assistant', answer]] });
      await conversation.update({ visitorName: name, lastMessagePreview: answer, summary: `${name.split(' ')[0]} asked: ${question}`, intent: 'question' });
    }
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
    if (!TARGET && folder) rmSync(folder, { recursive: true, force: true });
  });
  afterEach(() => assert.deepEqual(errors, [], 'no script errors'));

  async function shoot(page: Page, name: string): Promise<void> {
    const file = join(folder, name);
    await page.screenshot({ path: file });
    assert.deepEqual([...readFileSync(file).subarray(1, 4)], [0x50, 0x4e, 0x47], `${name} is a PNG`);
  }

  it('the inbox on a desktop and on a phone, and the widget with a rated answer', async () => {
    const visitor = await newPage(browser, errors, { viewport: { width: 1100, height: 760 } });
    fakeLlm().script({ reply: 'We ship to Norway, Sweden and Finland within five working days.' });
    await openWidget(visitor, site.url('/'));
    await sendInWidget(visitor, 'Do you ship to Norway?');
    const answer = widgetMessages(visitor, 'assistant').filter({ hasText: 'within five working days' });
    await answer.waitFor({ timeout: 15_000 });
    await answer.locator('button[data-rating="up"]').click();
    await answer.locator('button[data-rating="up"][aria-pressed="true"]').waitFor();
    await shoot(visitor, 'widget-answer-feedback.png');
    const conversationId = (await visitor.evaluate(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`)) as string;
    await visitor.close();

    const desktop = await signInInbox(await newPage(browser, errors, { viewport: { width: 1280, height: 800 } }), `${base}/inbox/conversations/${conversationId}`, agent.email);
    await threadLines(desktop, 'assistant').locator('.rating').waitFor({ timeout: 10_000 });
    await desktop.locator('#customer h3 ~ *').first().waitFor();
    await shoot(desktop, 'inbox-desktop.png');
    await desktop.close();

    const phone = await signInInbox(await newPage(browser, errors, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }), `${base}/inbox`, agent.email);
    await phone.locator(`#list li[data-id="${conversationId}"]`).waitFor();
    await shoot(phone, 'inbox-phone-list.png');
    await phone.locator(`#list li[data-id="${conversationId}"] a`).click();
    await threadLines(phone, 'assistant').first().waitFor();
    await shoot(phone, 'inbox-phone-thread.png');
    await phone.close();
    assert.ok(await Message.count({ where: { rating: 'up' } }));
  });
});
