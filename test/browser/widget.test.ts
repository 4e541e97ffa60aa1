import { strict as assert } from 'node:assert';
import type { Browser } from 'playwright-core';
import { Conversation } from '../../src/models';
import { launchBrowser, openWidget, sendInWidget, startBrowserNode, stopBrowserNode, widget, widgetMessages } from '../support/browser';
import { fakeLlm, server } from '../support/hooks';
import type { Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';
import * as make from '../support/factories';

const REPLY = 'Our shop ships worldwide within five working days.';


describe('widget.js in real Chromium', function () {
  this.timeout(90_000);
  let node: Running;
  let base: string;
  let browser: Browser;
  let site: TestSite;
  let bot: Awaited<ReturnType<typeof make.chatbot>>;
  let owner: Awaited<ReturnType<typeof make.workspace>>['owner'];

  before(async () => {
    ({ node, base } = await startBrowserNode('browser-node'));
    const tenant = await make.workspace();
    owner = tenant.owner;
    bot = await make.chatbot(tenant.company);
    await make.providerKey(tenant.company, bot.provider);
    // The shop's page lives on another origin than Parley, as on a customer's site.
    site = await startSite({ '/': html(`<h1>Fjord Shop</h1><script src="${base}/widget.js" data-key="${bot.publicKey}" defer></script>`, '<title>Fjord Shop</title>') });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
  });
  beforeEach(() => fakeLlm().reset());


  it('opens, sends, shows the streamed answer, and keeps the transcript across a reload', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    fakeLlm().script({ reply: REPLY, delayMs: 30 });
    await openWidget(page, site.url('/'));
    await sendInWidget(page, 'Do you ship to Norway?');
    await widgetMessages(page, 'assistant').filter({ hasText: REPLY }).waitFor({ timeout: 15_000 });
    assert.equal(await widgetMessages(page, 'visitor').filter({ hasText: 'Do you ship to Norway?' }).count(), 1);

    await page.reload();
    await widget(page, '[data-parley="launcher"]').click();
    await widgetMessages(page, 'assistant').filter({ hasText: REPLY }).waitFor({ timeout: 15_000 });
    assert.equal(await widgetMessages(page, 'visitor').count(), 1, 'restored once, not duplicated');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows an agent reply live, sent from another node of the cluster', async () => {
    const page = await browser.newPage();
    fakeLlm().script({ reply: 'Hello!' });
    await openWidget(page, site.url('/'));
    // Heartbeats come every 120 s on this node, so a reply seen within seconds came over the socket.
    // Socket.IO's CONNECT answer ("40...") means the widget's socket sits in its conversation's room.
    const joined = new Promise<void>((resolve) =>
      page.on('websocket', (ws) => ws.on('framereceived', (frame) => String(frame.payload).startsWith('40') && resolve())),
    );
    await sendInWidget(page, 'Can a person help me?');
    await widgetMessages(page, 'assistant').filter({ hasText: 'Hello!' }).waitFor({ timeout: 15_000 });
    const conversationId = await page.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);
    assert.ok(conversationId, 'the widget keeps its conversation id');
    const stored = await Conversation.findOne({ where: { publicId: conversationId! } });
    assert.equal(stored?.chatbotId, bot.id);
    // The widget loads the Socket.IO client once a conversation exists; reply as an agent once it is connected.
    await joined;
    await server().actors.ask('conversation', conversationId!, { type: 'agentReply', userId: owner.id, text: 'Hi, this is Sam from the shop.' });
    await widgetMessages(page, 'agent').filter({ hasText: 'Hi, this is Sam from the shop.' }).waitFor({ timeout: 10_000 });
    await page.close();
  });

  it('shows a message containing HTML as text, never as markup', async () => {
    const page = await browser.newPage();
    const hostile = '<img src=x onerror="window.__owned=1"><b>bold?</b>';
    fakeLlm().script({ reply: `You wrote ${hostile}` });
    await openWidget(page, site.url('/'));
    await sendInWidget(page, hostile);
    await widgetMessages(page, 'assistant').filter({ hasText: 'You wrote' }).waitFor({ timeout: 15_000 });
    assert.equal((await widgetMessages(page, 'visitor').last().innerText()).trim(), hostile);
    assert.ok((await widgetMessages(page, 'assistant').last().innerText()).includes(hostile));
    assert.equal(await widget(page, '[data-parley="transcript"] img, [data-parley="transcript"] b').count(), 0);
    assert.equal(await page.evaluate<number | undefined>('window.__owned'), undefined);
    await page.close();
  });

  it('asks for a human with the handoff button and shows the wait, then the AI stays silent', async () => {
    const page = await browser.newPage();
    fakeLlm().script({ reply: 'Happy to help.' });
    await openWidget(page, site.url('/'));
    await sendInWidget(page, 'Where is my order?');
    await widgetMessages(page, 'assistant').filter({ hasText: 'Happy to help.' }).waitFor({ timeout: 15_000 });
    await widget(page, '[data-parley="handoff"]').click();
    // The workspace's first-response target is 300 s: the widget counts down from about 5 minutes.
    await widget(page, '[data-parley="status"]').filter({ hasText: /Waiting for an agent - about 5 min/ }).waitFor({ timeout: 10_000 });
    assert.equal(await widget(page, '[data-parley="handoff"]').isHidden(), true, 'asked once, the button goes');
    const conversationId = await page.evaluate<string | undefined>(`Object.entries(localStorage).find(([key]) => key.endsWith(':conversation'))?.[1]`);
    const stored = await Conversation.findOne({ where: { publicId: conversationId! } });
    assert.equal(stored?.handoffState, 'handoff_pending');

    const before = fakeLlm().requests.length;
    await sendInWidget(page, 'Anyone there?');
    await widget(page, '.notice').filter({ hasText: 'An agent will reply here' }).waitFor({ timeout: 10_000 });
    assert.equal(fakeLlm().requests.length, before, 'the AI is not asked while a person is awaited');
    await page.close();
  });

  it('the AI hands over by itself when the visitor asks it for a person', async () => {
    const page = await browser.newPage();
    await openWidget(page, site.url('/'));
    await sendInWidget(page, 'Can I talk to a human?');
    await widgetMessages(page, 'assistant').filter({ hasText: 'asked a teammate to join' }).waitFor({ timeout: 15_000 });
    await widget(page, '[data-parley="status"]').filter({ hasText: /Waiting for an agent/ }).waitFor({ timeout: 10_000 });
    assert.equal(fakeLlm().requests.length, 0);
    await page.close();
  });
});
