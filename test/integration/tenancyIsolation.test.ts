import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { AiSuggestion, CannedReply, Visitor, type Company } from '../../src/models';
import { createTag } from '../../src/domain/catalogue/createTag';
import { server } from '../support/hooks';
import { request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import * as make from '../support/factories';

/**
 * The tenancy matrix (issue 9): every endpoint that names a record, called by workspace A with
 * workspace B's ids. Each must answer as if the record did not exist, and B's data must not change.
 */

/** Everything one workspace owns that a path or body can name. */
async function tenant() {
  const { company, owner } = await make.workspace({ portal: true });
  const agent = await make.user(company, 'agent');
  const bot = await make.chatbot(company);
  const conversation = await make.conversation(bot, { messages: [['visitor', 'Hello from my workspace']] });
  await conversation.update({ visitorEmail: 'private@example.test', visitorName: 'Private Person' });
  const source = await make.knowledgeSource(bot, {});
  const tag = await createTag(company.id, { name: `tag-${company.id}` });
  const canned = await CannedReply.create({ companyId: company.id, userId: null, title: 'Hi', shortcut: 'hi', body: 'Hello!' });
  const suggestion = await AiSuggestion.create({ companyId: company.id, conversationId: conversation.id, userId: agent.id, suggestion: 'Try this', outcome: 'generated' });
  const visitor = await Visitor.create({ companyId: company.id, chatbotId: bot.id, visitorKey: conversation.visitorKey, lastSeenAt: new Date() });
  return {
    company,
    bot,
    conversation,
    source,
    tag,
    canned,
    suggestion,
    visitor,
    tokens: { api: await make.token(owner), portal: await make.token(owner, 'portal'), agent: await make.token(agent, 'agent') },
  };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

interface Probe {
  name: string;
  call: (a: Tenant, b: Tenant) => Promise<Reply>;
  /** What "as if it did not exist" is for this endpoint; 404 unless said otherwise. */
  expect?: (reply: Reply, b: Tenant) => void;
}

const as = (token: string, method: string, path: string, body?: unknown) => request(method, path, { token, body, headers: { 'X-Forwarded-For': freshIp() } });
const notFound = (reply: Reply) => assert.equal(reply.status, 404, JSON.stringify(reply.body));

const PROBES: Probe[] = [
  // REST API v1
  { name: 'v1 GET /chatbots/{key}', call: (a, b) => as(a.tokens.api, 'GET', `/api/v1/chatbots/${b.bot.publicKey}`) },
  { name: 'v1 GET /chatbots/{key}/conversations', call: (a, b) => as(a.tokens.api, 'GET', `/api/v1/chatbots/${b.bot.publicKey}/conversations`) },
  { name: 'v1 GET /conversations/{uuid}', call: (a, b) => as(a.tokens.api, 'GET', `/api/v1/conversations/${b.conversation.publicId}`) },
  { name: 'v1 POST /chatbots/{key}/knowledge', call: (a, b) => as(a.tokens.api, 'POST', `/api/v1/chatbots/${b.bot.publicKey}/knowledge`, { title: 'x', content: 'Some text to learn.' }) },
  { name: 'v1 POST /chatbots/{key}/messages', call: (a, b) => as(a.tokens.api, 'POST', `/api/v1/chatbots/${b.bot.publicKey}/messages`, { visitor_id: 'v-1', message: 'Hi' }) },
  {
    name: 'v1 POST /chatbots/{own key}/messages into B\'s conversation',
    call: (a, b) => as(a.tokens.api, 'POST', `/api/v1/chatbots/${a.bot.publicKey}/messages`, { visitor_id: b.conversation.visitorKey, message: 'Hi', conversation_id: b.conversation.publicId }),
  },
  // Portal
  { name: 'portal GET /chatbots/{key}', call: (a, b) => as(a.tokens.portal, 'GET', `/api/portal/chatbots/${b.bot.publicKey}`) },
  { name: 'portal PUT /chatbots/{key}', call: (a, b) => as(a.tokens.portal, 'PUT', `/api/portal/chatbots/${b.bot.publicKey}`, { name: 'Taken over' }) },
  { name: 'portal GET /chatbots/{key}/knowledge', call: (a, b) => as(a.tokens.portal, 'GET', `/api/portal/chatbots/${b.bot.publicKey}/knowledge`) },
  { name: 'portal POST /chatbots/{key}/knowledge', call: (a, b) => as(a.tokens.portal, 'POST', `/api/portal/chatbots/${b.bot.publicKey}/knowledge`, { type: 'text', title: 'x', content: 'Some text.' }) },
  { name: 'portal DELETE /chatbots/{key}/knowledge/{source}', call: (a, b) => as(a.tokens.portal, 'DELETE', `/api/portal/chatbots/${b.bot.publicKey}/knowledge/${b.source.id}`) },
  { name: 'portal DELETE /chatbots/{own key}/knowledge/{B\'s source}', call: (a, b) => as(a.tokens.portal, 'DELETE', `/api/portal/chatbots/${a.bot.publicKey}/knowledge/${b.source.id}`) },
  // Agent app
  {
    name: 'agent GET /conversations/{conversation}',
    call: (a, b) => as(a.tokens.agent, 'GET', `/api/agent/conversations/${b.conversation.publicId}`),
    expect: (reply) => assert.deepEqual([reply.status, reply.body.active], [200, null]),
  },
  {
    name: 'agent GET /inbox?conversation=',
    call: (a, b) => as(a.tokens.agent, 'GET', `/api/agent/inbox?conversation=${b.conversation.publicId}`),
    expect: (reply, b) => {
      assert.deepEqual([reply.status, reply.body.active], [200, null]);
      assert.ok(!JSON.stringify(reply.body).includes(b.conversation.publicId));
    },
  },
  ...(['reply', 'takeover', 'release', 'resolve', 'reopen', 'notes', 'tags', 'revenue', 'lead', 'suggest', 'enhance', 'summary'] as const).map(
    (action): Probe => ({
      name: `agent POST /conversations/{conversation}/${action}`,
      call: (a, b) => as(a.tokens.agent, 'POST', `/api/agent/conversations/${b.conversation.publicId}/${action}`, { body: 'Hello there', tag_id: a.tag.id, amount: 10 }),
    }),
  ),
  { name: 'agent DELETE /conversations/{conversation}/tags/{tag}', call: (a, b) => as(a.tokens.agent, 'DELETE', `/api/agent/conversations/${b.conversation.publicId}/tags/${b.tag.id}`) },
  { name: 'agent DELETE /conversations/{own}/tags/{B\'s tag}', call: (a, b) => as(a.tokens.agent, 'DELETE', `/api/agent/conversations/${a.conversation.publicId}/tags/${b.tag.id}`) },
  {
    name: 'agent POST /conversations/{own}/tags with B\'s tag',
    call: (a, b) => as(a.tokens.agent, 'POST', `/api/agent/conversations/${a.conversation.publicId}/tags`, { tag_id: b.tag.id }),
    expect: (reply) => assert.equal(reply.status, 422),
  },
  { name: 'agent GET /conversations/{conversation}/customer-context', call: (a, b) => as(a.tokens.agent, 'GET', `/api/agent/conversations/${b.conversation.publicId}/customer-context`) },
  { name: 'agent POST /suggestion/{suggestion}/outcome', call: (a, b) => as(a.tokens.agent, 'POST', `/api/agent/suggestion/${b.suggestion.id}/outcome`, { outcome: 'inserted' }) },
  { name: 'agent POST /canned/{canned}/used', call: (a, b) => as(a.tokens.agent, 'POST', `/api/agent/canned/${b.canned.id}/used`) },
  { name: 'agent POST /visitors/{visitor}/invite', call: (a, b) => as(a.tokens.agent, 'POST', `/api/agent/visitors/${b.visitor.visitorKey}/invite`, { message: 'Hi!' }) },
  {
    name: 'agent POST /visitors/{visitor}/invite from B\'s chatbot',
    call: async (a) => {
      const own = await Visitor.create({ companyId: a.company.id, chatbotId: a.bot.id, visitorKey: `own-${a.company.id}`, lastSeenAt: new Date() });
      return as(a.tokens.agent, 'POST', `/api/agent/visitors/${own.visitorKey}/invite`, { message: 'Hi!', chatbot_id: otherBotId });
    },
    expect: (reply) => assert.equal(reply.status, 422),
  },
  {
    name: 'agent POST /broadcasting/auth for B\'s channels',
    call: (a, b) => as(a.tokens.agent, 'POST', '/api/agent/broadcasting/auth', { socket_id: 'abc.1', channel_name: `private-conversation.${b.conversation.publicId}` }),
    expect: (reply) => assert.equal(reply.status, 403),
  },
  {
    name: 'agent GET /visitors lists only A\'s visitors',
    call: (a) => as(a.tokens.agent, 'GET', '/api/agent/visitors'),
    expect: (reply, b) => assert.ok(!JSON.stringify(reply.body).includes(b.visitor.visitorKey), JSON.stringify(reply.body)),
  },
  // Widget: A's chatbot key with B's conversation (same visitor id, so only the chatbot differs)
  { name: 'widget GET /conversations/{id}', call: (a, b) => request('GET', `/widget/${a.bot.publicKey}/conversations/${b.conversation.publicId}?visitor_id=${b.conversation.visitorKey}`, { headers: { 'X-Forwarded-For': freshIp() } }) },
  { name: 'widget POST /handoff', call: (a, b) => request('POST', `/widget/${a.bot.publicKey}/handoff`, { body: { visitor_id: b.conversation.visitorKey, conversation_id: b.conversation.publicId }, headers: { 'X-Forwarded-For': freshIp() } }) },
  { name: 'widget POST /chat/reset', call: (a, b) => request('POST', `/widget/${a.bot.publicKey}/chat/reset`, { body: { visitor_id: b.conversation.visitorKey, conversation_id: b.conversation.publicId }, headers: { 'X-Forwarded-For': freshIp() } }) },
  {
    name: 'widget POST /stream into B\'s conversation',
    call: (a, b) => request('POST', `/widget/${a.bot.publicKey}/stream`, { body: { visitor_id: b.conversation.visitorKey, conversation_id: b.conversation.publicId, message: 'Hi' }, headers: { 'X-Forwarded-For': freshIp() } }),
  },
];

// Set in `before`: B's chatbot, for the probe that names it in a body.
let otherBotId = 0;

/** A fingerprint of everything B owns, to prove no probe changed it. */
async function fingerprint(company: Company): Promise<string> {
  const tables = ['conversations', 'messages', 'conversation_events', 'conversation_tags', 'notes', 'leads', 'knowledge_sources', 'chatbots', 'canned_replies', 'ai_suggestions', 'usage_records', 'visitors'];
  const rows = await server().ctx.db.sequelize.query<Record<string, unknown>>(
    tables.map((table) => `SELECT '${table}' AS t, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${table} x WHERE x.company_id = $1`).join(' UNION ALL '),
    { bind: [company.id], type: QueryTypes.SELECT },
  );
  return JSON.stringify(rows);
}

describe('tenancy isolation matrix: every endpoint x another workspace\'s ids', function () {
  this.timeout(120_000);
  let a: Tenant;
  let b: Tenant;

  before(async () => {
    [a, b] = await Promise.all([tenant(), tenant()]);
    otherBotId = b.bot.id;
    await b.bot.update({ branding: { ...b.bot.branding, live_visitors: true } });
  });

  it(`answers as if the record did not exist, for all ${PROBES.length} probes, and leaves the other workspace unchanged`, async () => {
    const before = await fingerprint(b.company);
    const failures: string[] = [];
    for (const probe of PROBES) {
      const reply = await probe.call(a, b);
      try {
        (probe.expect ?? notFound)(reply, b);
        assert.ok(reply.status < 500, 'never a 5xx');
      } catch (error) {
        failures.push(`${probe.name}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)} (${(error as Error).message.split('\n')[0]})`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(await fingerprint(b.company), before, 'B\'s rows are exactly as they were');
  });
});
