import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { Company, Conversation, Message } from '../../src/models';
import { followUpsOf } from '../../src/domain/followup/service';
import { openWidget, sendInWidget, shopSuite, widget, widgetMessages } from '../support/browser';
import { eventually } from '../support/eventually';
import { fakeLlm, server } from '../support/hooks';
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

  it('an away agent comes back with the switch and is given the visitor who waits first in line; the one behind is told live they are next', async () => {
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
    // A second visitor queues behind the first.
    const second = await newPage();
    fakeLlm().script({ reply: 'Happy to help.' });
    await openWidget(second, shop.site.url('/'));
    await sendInWidget(second, 'Me too, please.');
    await widgetMessages(second, 'assistant').filter({ hasText: 'Happy to help.' }).waitFor({ timeout: 15_000 });
    await widget(second, '[data-parley="handoff"]').click();
    await widget(second, '[data-parley="status"]').filter({ hasText: 'you are number 2 in line' }).waitFor({ timeout: 10_000 });

    // Back online: the router gives Sam the waiting visitor, and the widget hears it live; the second
    // visitor's widget is told, without asking, that they are next.
    await toggle.click();
    await toggle.filter({ hasText: /^Available/ }).waitFor();
    await widget(visitor, '[data-parley="status"]').filter({ hasText: 'You are chatting with a person' }).waitFor({ timeout: 15_000 });
    await widget(second, '[data-parley="status"]').filter({ hasText: 'you are number 1 in line' }).waitFor({ timeout: 10_000 });
    await inbox.locator('#toast').filter({ hasText: /^Assigned to you: .+\. It is in Mine\.$/ }).waitFor({ timeout: 10_000 });
    const held = await eventually(() => Conversation.findOne({ where: { companyId: company.id, assignedUserId: agent.id } }), (row) => row !== null);
    assert.equal(held?.status, 'agent');
    assert.deepEqual(pageErrors, []);
    await inbox.close();
    await visitor.close();
    await second.close();
  });

  it('after hours the widget shows the offline message and takes the visitor\'s email for the follow-up', async () => {
    const { company } = await make.workspace();
    const closed = { business_hours: { timezone: 'UTC', days: {} }, offline_message: 'We are closed - back at nine.' };
    await Company.update({ settings: { routing: { mode: 'manual', ...closed } } }, { where: { id: company.id } });
    const bot = await make.chatbot(company);
    botKey = bot.publicKey;
    await make.providerKey(company, bot.provider);

    const visitor = await newPage();
    fakeLlm().script({ reply: 'Let me see.' });
    await openWidget(visitor, shop.site.url('/'));
    await sendInWidget(visitor, 'Can a person call me back?');
    await widgetMessages(visitor, 'assistant').filter({ hasText: 'Let me see.' }).waitFor({ timeout: 15_000 });
    await widget(visitor, '[data-parley="handoff"]').click();
    await widget(visitor, '.notice').filter({ hasText: 'We are closed - back at nine.' }).waitFor({ timeout: 10_000 });
    const form = widget(visitor, '[data-parley="email"]');
    await form.getByLabel('Your email').fill('late@visitor.test');
    await form.getByRole('button', { name: 'Email me' }).click();
    await widget(visitor, '.notice').filter({ hasText: 'late@visitor.test' }).waitFor({ timeout: 10_000 });
    assert.equal(await form.count(), 0, 'the form goes once the email is saved');
    const row = await eventually(() => Conversation.findOne({ where: { companyId: company.id } }), (found) => found?.visitorEmail != null);
    assert.equal(row?.visitorEmail, 'late@visitor.test');
    assert.deepEqual(pageErrors, []);
    await visitor.close();
  });

  it('a follow-up mail\'s link opens the chat on a new device, shows the agent\'s reply, and the visitor\'s answer joins the conversation', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    botKey = bot.publicKey;
    const conversation = await make.conversation(bot, { messages: [['visitor', 'Where is my parcel?'], ['agent', 'It ships tomorrow morning.']] });
    await conversation.update({ visitorEmail: 'away@visitor.test' });
    const line = await Message.findOne({ where: { conversationId: conversation.id, role: 'agent' } });
    const { records, links } = followUpsOf(server().ctx);
    const mail = await records.create({ companyId: company.id, conversationId: conversation.id, recipient: 'away@visitor.test', lines: [{ id: Number(line!.id), content: line!.content, at: line!.createdAt }] });

    const phone = await newPage();
    await phone.goto(`${shop.base}/chat/${bot.publicKey}#parley-continue=${links.sign(conversation.publicId, mail.id)}`);
    await widgetMessages(phone, 'agent').filter({ hasText: 'It ships tomorrow morning.' }).waitFor({ timeout: 15_000 });
    assert.equal(new URL(phone.url()).hash, '', 'the token leaves the address bar');
    await sendInWidget(phone, 'Great, thank you!');
    const reply = await eventually(
      () => Message.findOne({ where: { conversationId: conversation.id, role: 'visitor', content: 'Great, thank you!' } }),
      (found) => found !== null,
      15_000,
    );
    assert.ok(reply);
    assert.notEqual((await Conversation.findByPk(conversation.id))!.visitorKey, conversation.visitorKey, 'the conversation moved to the phone');
    assert.deepEqual(pageErrors, []);
    await phone.close();
  });
});
