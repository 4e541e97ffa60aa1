import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Conversation } from '../../src/models';
import type { RecordedRequest } from '../support/fakeLlm';
import { fakeLlm, server } from '../support/hooks';
import { get, request } from '../support/http';
import { ROOT } from '../support/processes';
import { ask, newVisitor, widgetTenant } from '../support/widget';

/** The system prompt of an OpenAI-protocol request (the factories' chatbots use openai). */
const systemOf = (sent: RecordedRequest): string => sent.body.messages[0].content;

describe("widget language: the catalogues, the setting, and the AI answering in the visitor's language", () => {
  beforeEach(() => fakeLlm().reset());

  it('serves each catalogue as JSON (gzipped when accepted, with an ETag) and 404 for a language without one', async () => {
    const french = await request('GET', '/widget/i18n/fr.json', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(french.status, 200);
    assert.deepEqual(french.body, JSON.parse(readFileSync(resolve(ROOT, 'client/widget/i18n/fr.json'), 'utf8')));
    assert.equal(french.headers.get('access-control-allow-origin'), '*', 'any site embeds the widget');
    assert.equal(french.headers.get('content-encoding'), 'gzip');
    const etag = french.headers.get('etag');
    assert.ok(etag);
    assert.equal((await fetch(`${server().url}/widget/i18n/fr.json`, { headers: { 'If-None-Match': etag } })).status, 304);
    for (const unknown of ['xx', 'en', 'FR', '..%2Fwidget']) assert.equal((await get(`/widget/i18n/${unknown}.json`)).status, 404, unknown);
  });

  it("gives the widget the chatbot's language setting: auto unless one is stored", async () => {
    const tenant = await widgetTenant({ withKey: false });
    assert.equal((await get(`${tenant.base}/config`)).body.branding.language, 'auto');
    await tenant.bot.update({ branding: { ...tenant.bot.branding, language: 'ar' } });
    assert.equal((await get(`${tenant.base}/config`)).body.branding.language, 'ar');
  });

  it('tells the AI the language the widget sends, keeps it on the conversation, and refuses a malformed one', async () => {
    const tenant = await widgetTenant();
    fakeLlm().script({ reply: 'Olá! Enviamos para todo o Brasil.' });
    const visitor = newVisitor();
    const first = await ask(tenant, { visitor_id: visitor, message: 'Vocês entregam no Brasil?', locale: 'pt-BR' });
    assert.equal(first.events.at(-1)?.event, 'done', JSON.stringify(first.events));
    const conversationId = first.events[0]!.data.conversation_id;
    assert.equal((await Conversation.findOne({ where: { publicId: conversationId } }))?.locale, 'pt-BR');
    assert.match(systemOf(fakeLlm().requests[0]!), /The visitor's language is Brazilian Portuguese, language tag pt-BR: reply in it/);

    // A message without a locale (an older widget) leaves the language the conversation has.
    await ask(tenant, { visitor_id: visitor, conversation_id: conversationId, message: 'E para Portugal?' });
    assert.match(systemOf(fakeLlm().requests[1]!), /Brazilian Portuguese/);

    const refused = await ask(tenant, { visitor_id: newVisitor(), message: 'Hi', locale: 'en_US; DROP' });
    assert.equal(refused.status, 422);
    assert.ok(refused.body.errors.locale, JSON.stringify(refused.body));
  });
});
