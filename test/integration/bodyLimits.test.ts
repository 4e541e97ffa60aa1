import { strict as assert } from 'node:assert';
import { request as httpRequest } from 'node:http';
import { KnowledgeSource } from '../../src/models';
import { server } from '../support/hooks';
import { request } from '../support/http';
import { freshIp, portalTenant } from '../support/portal';
import * as make from '../support/factories';

const KB = 1024;
const MB = 1024 * KB;

/**
 * Announces a JSON body of `length` bytes but sends none of it, and resolves with the answer. A server
 * that reads the body first never answers (the test then times out), so an answer proves it decided
 * without parsing.
 */
function answerWithoutBody(path: string, length: number, headers: Record<string, string> = {}): Promise<{ status: number; body: { message?: unknown; code?: unknown } }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server().url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(length), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { message?: unknown; code?: unknown } });
      });
    });
    req.flushHeaders();
  });
}

const assertError = (reply: { status: number; body: { message?: unknown; code?: unknown } }, status: number, code: string) => {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body.code, code);
  assert.equal(typeof reply.body.message, 'string');
};

describe('body limits: small bodies by default, parsed only after limits and authentication', () => {
  // body-parser refuses on Content-Length alone but drains (without buffering or parsing) what the client
  // still sends before answering, so these bodies are sent in full; before the fix they were parsed (422).
  it('refuses a 100 KB body to the public heartbeat and widget stream with 413', async () => {
    const { company } = await make.workspace();
    const bot = await make.chatbot(company);
    const body = { visitor_id: 'v-1', url: 'https://example.com/', message: 'hi', padding: 'x'.repeat(100 * KB) };
    for (const route of ['heartbeat', 'stream']) {
      const reply = await request('POST', `/widget/${bot.publicKey}/${route}`, { body, headers: { 'X-Forwarded-For': freshIp() } });
      assertError(reply, 413, 'payload_too_large');
    }
  });

  it('answers 429 to an IP over the widget stream limit before reading its body', async () => {
    const ip = freshIp();
    // The limit runs before the chatbot is looked up, so an unknown key spends the IP's points too.
    for (let i = 0; i < 20; i++) {
      const spent = await request('POST', '/widget/no-such-bot/stream', { body: {}, headers: { 'X-Forwarded-For': ip } });
      assert.equal(spent.status, 404);
    }
    assertError(await answerWithoutBody('/widget/no-such-bot/stream', 10 * KB, { 'X-Forwarded-For': ip }), 429, 'too_many_requests');
  });

  it('answers 401 to a large knowledge upload without a token, and 403 without the ability, before reading it', async () => {
    const { company, bot } = await make.v1Tenant();
    for (const surface of ['v1', 'portal']) {
      assertError(await answerWithoutBody(`/api/${surface}/chatbots/${bot.publicKey}/knowledge`, 7 * MB), 401, 'unauthenticated');
    }
    const agent = await make.user(company, 'agent');
    const forbidden = await answerWithoutBody(`/api/v1/chatbots/${bot.publicKey}/knowledge`, 7 * MB, { Authorization: `Bearer ${await make.token(agent)}` });
    assertError(forbidden, 403, 'forbidden');
  });

  it('still takes a 1,000,000-character knowledge text (2 MB of multi-byte characters) through v1 and portal', async () => {
    const content = 'é'.repeat(1_000_000);
    const v1 = await make.v1Tenant();
    // Without a title v1 answers 422 from the route's own validation: the 2 MB body was parsed, not refused.
    const parsed = await request('POST', `/api/v1/chatbots/${v1.bot.publicKey}/knowledge`, { token: v1.token, body: { content } });
    assert.equal(parsed.status, 422, JSON.stringify(parsed.body).slice(0, 200));
    assert.ok(parsed.body.errors.title);

    const portal = await portalTenant();
    const bot = await make.chatbot(portal.company);
    const added = await request('POST', `/api/portal/chatbots/${bot.publicKey}/knowledge`, { token: portal.token, body: { type: 'text', title: 'Big', content } });
    assert.equal(added.status, 201, JSON.stringify(added.body).slice(0, 200));
    assert.equal((await KnowledgeSource.findByPk(added.body.data.id))?.chatbotId, bot.id);
  });

  it('keeps the small limit on other authenticated routes', async () => {
    const { token } = await make.v1Tenant();
    const reply = await request('POST', '/api/v1/chatbots/x/messages', { token, body: { padding: 'x'.repeat(100 * KB) } });
    assertError(reply, 413, 'payload_too_large');
  });
});
