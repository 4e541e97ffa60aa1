import { strict as assert } from 'node:assert';
import type { Browser, Page } from 'playwright-core';
import { Company, Conversation } from '../../src/models';
import { launchBrowser, openWidget, sendInWidget, startBrowserNode, stopBrowserNode, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import { fakeLlm } from '../support/hooks';
import type { Running } from '../support/processes';
import { html, startSite, type TestSite } from '../support/site';
import * as make from '../support/factories';

/** Auto routing as people see it (docs/routing.md): the inbox's availability switch, the widget's place in the queue. */
describe('routing in real Chromium (inbox switch, widget queue)', function () {
  this.timeout(120_000);
  let node: Running;
  let base: string;
  let browser: Browser;
  let site: TestSite;
  let botKey = '';
  const pageErrors: string[] = [];

  before(async () => {
    ({ node, base } = await startBrowserNode('routing-browser-node'));
    site = await startSite({ '/': () => html(`<h1>Fjord Shop</h1><script src="${base}/widget.js" data-key="${botKey}" defer></script>`, '<title>Fjord Shop</title>') });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await stopBrowserNode(node);
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  }

  it('an away agent comes back with the switch and is given the visitor who waits first in line', async () => {
    const { company } = await make.workspace();
    await Company.update({ settings: { routing: { mode: 'auto', capacity: 1 } } }, { where: { id: company.id } });
    const agent = await make.user(company, 'agent', 'Sam Agent');
    const bot = await make.chatbot(company);
    botKey = bot.publicKey;
    await make.providerKey(company, bot.provider);

    const inbox = await newPage();
    await inbox.goto(`${base}/inbox`);
    await inbox.getByLabel('Email').fill(agent.email);
    await inbox.getByLabel('Password').fill('password-123');
    await inbox.getByRole('button', { name: 'Sign in' }).click();
    await inbox.locator('#connection[data-online="true"]').waitFor({ timeout: 15_000 });
    const toggle = inbox.locator('#availability');
    await toggle.filter({ hasText: 'Available · 0/1' }).waitFor({ timeout: 10_000 });
    await toggle.click();
    await toggle.filter({ hasText: 'Away · 0/1' }).waitFor();

    const visitor = await newPage();
    fakeLlm().script({ reply: 'Happy to help.' });
    await openWidget(visitor, site.url('/'));
    await sendInWidget(visitor, 'I need a person.');
    await widgetMessages(visitor, 'assistant').filter({ hasText: 'Happy to help.' }).waitFor({ timeout: 15_000 });
    await widget(visitor, '[data-parley="handoff"]').click();
    await widget(visitor, '[data-parley="status"]').filter({ hasText: 'you are number 1 in line' }).waitFor({ timeout: 10_000 });

    // Back online: the router gives Sam the waiting visitor, and the widget hears it live.
    await toggle.click();
    await toggle.filter({ hasText: /^Available/ }).waitFor();
    await widget(visitor, '[data-parley="status"]').filter({ hasText: 'You are chatting with a person' }).waitFor({ timeout: 15_000 });
    const held = await eventually(() => Conversation.findOne({ where: { companyId: company.id } }), (row) => row?.assignedUserId != null);
    assert.deepEqual([held?.status, held?.assignedUserId], ['agent', agent.id]);
    assert.deepEqual(pageErrors, []);
    await inbox.close();
    await visitor.close();
  });
});
