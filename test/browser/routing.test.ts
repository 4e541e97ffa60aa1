import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { Company, Conversation } from '../../src/models';
import { openWidget, sendInWidget, shopSuite, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import { fakeLlm } from '../support/hooks';
import * as make from '../support/factories';

/** Auto routing as people see it (docs/routing.md): the inbox's availability switch, the widget's place in the queue. */
describe('routing in real Chromium (inbox switch, widget queue)', function () {
  this.timeout(120_000);
  let botKey = '';
  const pageErrors: string[] = [];

  const shop = shopSuite('routing-browser-node', () => botKey);

  async function newPage(): Promise<Page> {
    const page = await shop.browser.newPage();
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
    await inbox.goto(`${shop.base}/inbox`);
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
    await openWidget(visitor, shop.site.url('/'));
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
