import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { ENDPOINTS } from '../../src/surfaces/endpoints';
import { endpointKey, type Endpoint } from '../../src/openapi/registry';
import { TEST_ENV } from '../support/env';
import * as make from '../support/factories';
import { server } from '../support/hooks';
import { request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import { postStream } from '../support/sse';
import { loadDocument, openApi31Validator, type DocumentValidator } from '../support/sweepDocument';
import { documents, servedRoutes } from '../support/sweepRoutes';
import { fullApp, serveWithPush } from '../support/sweepServers';
import { WebhookReceiver } from '../support/webhookReceiver';
import { fillPath, PASSWORD, sweepTenant, withReferences, type SweepTenant } from '../support/sweepTenant';

/** An answer as the checks need it: a JSON body, or the text and the parsed events of a stream. */
interface Answer extends Reply {
  events?: Array<{ event: string; data: unknown }>;
}

type Scenario = (t: SweepTenant) => Promise<Answer | Answer[]>;

const endpointOf = (key: string): Endpoint => {
  const found = ENDPOINTS.find((endpoint) => endpointKey(endpoint) === key);
  if (!found) throw new Error(`${key} is not in the registry`);
  return found;
};

/** Calls an endpoint with the tenant's ids in its path, from a fresh client address. */
function call(t: SweepTenant, key: string, options: { token?: string; body?: unknown; query?: string; baseUrl?: string; params?: Record<string, string> } = {}): Promise<Reply> {
  const endpoint = endpointOf(key);
  const token = options.token ?? (endpoint.auth === 'none' ? undefined : t.tokens[endpoint.auth]);
  const path = fillPath(endpoint.path, { ...t.params, ...options.params }) + (options.query ? `?${options.query}` : '');
  return request(endpoint.method.toUpperCase(), path, { token, body: options.body, baseUrl: options.baseUrl, headers: { 'X-Forwarded-For': freshIp() } });
}

/** The endpoint's first example body, naming this tenant's records. */
const exampleBody = (t: SweepTenant, key: string, index = 0) => withReferences(endpointOf(key).body!.examples[index] as Record<string, unknown>, t.references);

let pushServer: { url: string; close(): Promise<void> };

/** One real, successful request (or a few) per documented endpoint. */
const SCENARIOS: Record<string, Scenario> = {
  'GET /api/v1/me': (t) => call(t, 'GET /api/v1/me'),
  'GET /api/v1/chatbots': (t) => call(t, 'GET /api/v1/chatbots'),
  'GET /api/v1/chatbots/{key}': (t) => call(t, 'GET /api/v1/chatbots/{key}'),
  'GET /api/v1/chatbots/{key}/conversations': async (t) => [
    await call(t, 'GET /api/v1/chatbots/{key}/conversations', { query: 'per_page=1' }),
    await call(t, 'GET /api/v1/chatbots/{key}/conversations', { query: 'page=9' }),
  ],
  'GET /api/v1/conversations/{conversation}': (t) => call(t, 'GET /api/v1/conversations/{conversation}'),
  'GET /api/v1/conversations/{conversation}/events': async (t) => {
    // The tenant's conversation was made by SQL; a write through its actor gives it events.
    await server().actors.ask('conversation', t.conversation.publicId, { type: 'takeover', userId: t.owner.id });
    return [
      await call(t, 'GET /api/v1/conversations/{conversation}/events'),
      await call(t, 'GET /api/v1/conversations/{conversation}/events', { query: 'after_seq=0&limit=1' }),
    ];
  },
  'POST /api/v1/chatbots/{key}/knowledge': async (t) => [
    await call(t, 'POST /api/v1/chatbots/{key}/knowledge', { body: exampleBody(t, 'POST /api/v1/chatbots/{key}/knowledge') }),
    await call(t, 'POST /api/v1/chatbots/{key}/knowledge', { body: exampleBody(t, 'POST /api/v1/chatbots/{key}/knowledge', 1) }),
    // Nothing searchable: saved, not trained (422 with the document's id and status).
    await call(t, 'POST /api/v1/chatbots/{key}/knowledge', { body: { title: 'Symbols', content: '!!! ??? ...' } }),
  ],
  'POST /api/v1/chatbots/{key}/messages': async (t) => {
    // A visitor of its own: a send without conversation_id starts a new conversation, closing the visitor's open one.
    const visitor_id = `${t.visitorKey}-v1`;
    const answered = await call(t, 'POST /api/v1/chatbots/{key}/messages', { body: { ...exampleBody(t, 'POST /api/v1/chatbots/{key}/messages'), visitor_id } });
    const conversationId = (answered.body as { conversation_id: string }).conversation_id;
    await call(t, 'POST /api/agent/conversations/{conversation}/takeover', { params: { conversation: conversationId } });
    const held = await call(t, 'POST /api/v1/chatbots/{key}/messages', { body: { message: 'Still there?', visitor_id, conversation_id: conversationId } });
    assert.equal((held.body as { reply: unknown }).reply, null, JSON.stringify(held.body));
    return [answered, held];
  },

  'POST /api/portal/login': (t) => call(t, 'POST /api/portal/login', { body: { email: t.owner.email, password: PASSWORD } }),
  'POST /api/portal/logout': async (t) => call(t, 'POST /api/portal/logout', { token: await t.freshToken('portal') }),
  'GET /api/portal/me': (t) => call(t, 'GET /api/portal/me'),
  'GET /api/portal/chatbots': (t) => call(t, 'GET /api/portal/chatbots'),
  'GET /api/portal/chatbots/{key}': (t) => call(t, 'GET /api/portal/chatbots/{key}'),
  'PUT /api/portal/chatbots/{key}': (t) => call(t, 'PUT /api/portal/chatbots/{key}', { body: { ...exampleBody(t, 'PUT /api/portal/chatbots/{key}'), is_active: true } }),
  'GET /api/portal/chatbots/{key}/knowledge': (t) => call(t, 'GET /api/portal/chatbots/{key}/knowledge'),
  'POST /api/portal/chatbots/{key}/knowledge': async (t) => {
    const key = 'POST /api/portal/chatbots/{key}/knowledge';
    return Promise.all(endpointOf(key).body!.examples.map((_, index) => call(t, key, { body: exampleBody(t, key, index) })));
  },
  'DELETE /api/portal/chatbots/{key}/knowledge/{source}': async (t) => {
    const source = await make.knowledgeSource(t.bot, { title: 'To delete' });
    return call(t, 'DELETE /api/portal/chatbots/{key}/knowledge/{source}', { params: { source: String(source.id) } });
  },
  'GET /api/portal/keys': (t) => call(t, 'GET /api/portal/keys'),
  'GET /api/portal/webhooks': async (t) => {
    await call(t, 'POST /api/portal/webhooks', { body: exampleBody(t, 'POST /api/portal/webhooks') });
    return call(t, 'GET /api/portal/webhooks');
  },
  'POST /api/portal/webhooks': (t) => call(t, 'POST /api/portal/webhooks', { body: exampleBody(t, 'POST /api/portal/webhooks') }),
  'DELETE /api/portal/webhooks/{webhook}': async (t) => {
    const created = await call(t, 'POST /api/portal/webhooks', { body: exampleBody(t, 'POST /api/portal/webhooks') });
    return call(t, 'DELETE /api/portal/webhooks/{webhook}', { params: { webhook: String(created.body.webhook.id) } });
  },
  'GET /api/portal/webhooks/{webhook}/deliveries': async (t) => {
    const receiver = await WebhookReceiver.start();
    try {
      const created = await call(t, 'POST /api/portal/webhooks', { body: { url: receiver.url('openapi'), events: ['message.created'] } });
      const params = { webhook: String(created.body.webhook.id) };
      await call(t, 'POST /api/portal/webhooks/{webhook}/test', { params });
      return [await call(t, 'GET /api/portal/webhooks/{webhook}/deliveries', { params }), await call(t, 'GET /api/portal/webhooks/{webhook}/deliveries', { params, query: 'limit=1' })];
    } finally {
      await receiver.close();
    }
  },
  'POST /api/portal/webhooks/{webhook}/test': async (t) => {
    const receiver = await WebhookReceiver.start();
    try {
      const created = await call(t, 'POST /api/portal/webhooks', { body: { url: receiver.url('openapi'), events: ['message.created'] } });
      const params = { webhook: String(created.body.webhook.id) };
      // One delivered, one failed: both are the documented shape.
      const delivered = await call(t, 'POST /api/portal/webhooks/{webhook}/test', { params });
      receiver.answer(500);
      return [delivered, await call(t, 'POST /api/portal/webhooks/{webhook}/test', { params })];
    } finally {
      await receiver.close();
    }
  },
  'PUT /api/portal/keys/{provider}': (t) => call(t, 'PUT /api/portal/keys/{provider}', { params: { provider: 'mistral' }, body: exampleBody(t, 'PUT /api/portal/keys/{provider}') }),
  'DELETE /api/portal/keys/{provider}': async (t) => [
    await call(t, 'DELETE /api/portal/keys/{provider}', { params: { provider: 'mistral' } }),
    await call(t, 'DELETE /api/portal/keys/{provider}', { params: { provider: 'mistral' } }),
  ],
  'GET /api/portal/analytics': (t) => call(t, 'GET /api/portal/analytics'),
  'GET /api/portal/widget-snippet': (t) => call(t, 'GET /api/portal/widget-snippet'),

  'POST /api/agent/login': (t) => call(t, 'POST /api/agent/login', { body: { email: t.owner.email, password: PASSWORD, device_name: 'Pixel 8' } }),
  'POST /api/agent/refresh': async (t) => call(t, 'POST /api/agent/refresh', { token: await t.freshToken('agent') }),
  'GET /api/agent/me': (t) => call(t, 'GET /api/agent/me'),
  'POST /api/agent/logout': async (t) => call(t, 'POST /api/agent/logout', { token: await t.freshToken('agent') }),
  'POST /api/agent/broadcasting/auth': (t) => call(t, 'POST /api/agent/broadcasting/auth', { body: exampleBody(t, 'POST /api/agent/broadcasting/auth') }),
  'GET /api/agent/inbox': async (t) => [
    await call(t, 'GET /api/agent/inbox'),
    await call(t, 'GET /api/agent/inbox', { query: `filter=all&conversation=${t.conversation.publicId}` }),
  ],
  'GET /api/agent/conversations/{conversation}': async (t) => [
    await call(t, 'GET /api/agent/conversations/{conversation}'),
    await call(t, 'GET /api/agent/conversations/{conversation}', { params: { conversation: 'not-a-conversation' } }),
  ],
  'POST /api/agent/conversations/{conversation}/reply': async (t) => {
    const body = { body: 'Happy to help!', client_id: `c-${randomBytes(4).toString('hex')}` };
    return [await call(t, 'POST /api/agent/conversations/{conversation}/reply', { body }), await call(t, 'POST /api/agent/conversations/{conversation}/reply', { body })];
  },
  'POST /api/agent/conversations/{conversation}/takeover': (t) => call(t, 'POST /api/agent/conversations/{conversation}/takeover'),
  'POST /api/agent/conversations/{conversation}/release': (t) => call(t, 'POST /api/agent/conversations/{conversation}/release'),
  'POST /api/agent/conversations/{conversation}/resolve': (t) => call(t, 'POST /api/agent/conversations/{conversation}/resolve'),
  'POST /api/agent/conversations/{conversation}/reopen': (t) => call(t, 'POST /api/agent/conversations/{conversation}/reopen'),
  // Unblocked again at once: the other scenarios write to the same conversation.
  'POST /api/agent/conversations/{conversation}/block': async (t) => [
    await call(t, 'POST /api/agent/conversations/{conversation}/block'),
    await call(t, 'POST /api/agent/conversations/{conversation}/unblock'),
  ],
  'POST /api/agent/conversations/{conversation}/unblock': (t) => call(t, 'POST /api/agent/conversations/{conversation}/unblock'),
  'POST /api/agent/conversations/{conversation}/notes': (t) => call(t, 'POST /api/agent/conversations/{conversation}/notes', { body: exampleBody(t, 'POST /api/agent/conversations/{conversation}/notes') }),
  'GET /api/agent/tags': (t) => call(t, 'GET /api/agent/tags'),
  'POST /api/agent/conversations/{conversation}/tags': (t) => call(t, 'POST /api/agent/conversations/{conversation}/tags', { body: exampleBody(t, 'POST /api/agent/conversations/{conversation}/tags') }),
  'DELETE /api/agent/conversations/{conversation}/tags/{tag}': (t) => call(t, 'DELETE /api/agent/conversations/{conversation}/tags/{tag}'),
  'GET /api/agent/canned': (t) => call(t, 'GET /api/agent/canned'),
  'POST /api/agent/canned/{canned}/used': (t) => call(t, 'POST /api/agent/canned/{canned}/used'),
  'GET /api/agent/conversations/{conversation}/customer-context': (t) => call(t, 'GET /api/agent/conversations/{conversation}/customer-context'),
  'POST /api/agent/conversations/{conversation}/revenue': async (t) => {
    const key = 'POST /api/agent/conversations/{conversation}/revenue';
    return [await call(t, key, { body: exampleBody(t, key) }), await call(t, key, { body: exampleBody(t, key, 1) })];
  },
  'POST /api/agent/conversations/{conversation}/lead': async (t) => [
    await call(t, 'POST /api/agent/conversations/{conversation}/lead'),
    await call(t, 'POST /api/agent/conversations/{conversation}/lead'),
  ],
  'POST /api/agent/conversations/{conversation}/suggest': (t) => call(t, 'POST /api/agent/conversations/{conversation}/suggest', { body: exampleBody(t, 'POST /api/agent/conversations/{conversation}/suggest') }),
  'POST /api/agent/conversations/{conversation}/enhance': (t) => call(t, 'POST /api/agent/conversations/{conversation}/enhance', { body: exampleBody(t, 'POST /api/agent/conversations/{conversation}/enhance') }),
  'POST /api/agent/conversations/{conversation}/summary': async (t) => {
    // A summary needs a provider key (the fake LLM answers).
    await make.providerKey(t.company, t.bot.provider);
    return call(t, 'POST /api/agent/conversations/{conversation}/summary');
  },
  'POST /api/agent/suggestion/{suggestion}/outcome': (t) => call(t, 'POST /api/agent/suggestion/{suggestion}/outcome', { body: exampleBody(t, 'POST /api/agent/suggestion/{suggestion}/outcome') }),
  'GET /api/agent/visitors': (t) => call(t, 'GET /api/agent/visitors', { query: 'limit=50' }),
  'POST /api/agent/visitors/{visitor}/invite': async (t) => [
    await call(t, 'POST /api/agent/visitors/{visitor}/invite', { body: exampleBody(t, 'POST /api/agent/visitors/{visitor}/invite') }),
    await call(t, 'POST /api/agent/visitors/{visitor}/invite', { body: exampleBody(t, 'POST /api/agent/visitors/{visitor}/invite', 1) }),
  ],
  'GET /api/agent/push/vapid': async (t) => [await call(t, 'GET /api/agent/push/vapid'), await call(t, 'GET /api/agent/push/vapid', { baseUrl: pushServer.url })],
  'POST /api/agent/push/subscriptions': async (t) => {
    const body = { ...exampleBody(t, 'POST /api/agent/push/subscriptions'), endpoint: `https://push.example.test/${randomBytes(6).toString('hex')}` };
    return [await call(t, 'POST /api/agent/push/subscriptions', { body, baseUrl: pushServer.url }), await call(t, 'POST /api/agent/push/subscriptions', { body, baseUrl: pushServer.url })];
  },
  'DELETE /api/agent/push/subscriptions': (t) => call(t, 'DELETE /api/agent/push/subscriptions', { body: exampleBody(t, 'DELETE /api/agent/push/subscriptions') }),
  'GET /api/agent/notifications': (t) => call(t, 'GET /api/agent/notifications'),
  'GET /api/agent/me/status': (t) => call(t, 'GET /api/agent/me/status'),
  // Online again at the end: the switch leaves the tenant as it found it.
  'PATCH /api/agent/me/status': async (t) => [await call(t, 'PATCH /api/agent/me/status', { body: { status: 'away' } }), await call(t, 'PATCH /api/agent/me/status', { body: { status: 'online' } })],
  'GET /api/portal/routing': (t) => call(t, 'GET /api/portal/routing'),
  // Manual mode stays: the other scenarios run against today's behaviour.
  'PUT /api/portal/routing': (t) => call(t, 'PUT /api/portal/routing', { body: { capacity: 4, accept_seconds: 90 } }),
  'PATCH /api/agent/notifications': (t) => call(t, 'PATCH /api/agent/notifications', { body: exampleBody(t, 'PATCH /api/agent/notifications') }),

  'GET /widget/{key}/config': (t) => call(t, 'GET /widget/{key}/config'),
  'POST /widget/{key}/stream': async (t) => {
    const reply = await postStream(`/widget/${t.bot.publicKey}/stream`, exampleBody(t, 'POST /widget/{key}/stream', 1), { 'X-Forwarded-For': freshIp() });
    assert.ok(reply.events.length >= 3, JSON.stringify(reply));
    return { ...reply, body: reply.body };
  },
  'GET /widget/{key}/conversation': (t) => call(t, 'GET /widget/{key}/conversation', { query: `visitor_id=${t.visitorKey}` }),
  'GET /widget/{key}/conversations/{conversation}': (t) => call(t, 'GET /widget/{key}/conversations/{conversation}', { query: `visitor_id=${t.visitorKey}&after=0` }),
  'POST /widget/{key}/chat/reset': async (t) => {
    const own = await make.conversation(t.bot, { visitorKey: 'visitor-reset' });
    const body = { visitor_id: 'visitor-reset', conversation_id: own.publicId };
    return [await call(t, 'POST /widget/{key}/chat/reset', { body }), await call(t, 'POST /widget/{key}/chat/reset', { body })];
  },
  'POST /widget/{key}/handoff': (t) => call(t, 'POST /widget/{key}/handoff', { body: exampleBody(t, 'POST /widget/{key}/handoff') }),
  'POST /widget/{key}/messages/{message_id}/feedback': async (t) => [
    await call(t, 'POST /widget/{key}/messages/{message_id}/feedback', { body: exampleBody(t, 'POST /widget/{key}/messages/{message_id}/feedback') }),
    await call(t, 'POST /widget/{key}/messages/{message_id}/feedback', { body: exampleBody(t, 'POST /widget/{key}/messages/{message_id}/feedback', 1) }),
  ],
  'POST /widget/{key}/heartbeat': (t) => call(t, 'POST /widget/{key}/heartbeat', { body: exampleBody(t, 'POST /widget/{key}/heartbeat') }),

  'GET /': (t) => call(t, 'GET /', { baseUrl: pushServer.url }),
  'GET /healthz': (t) => call(t, 'GET /healthz'),
  'GET /readyz': (t) => call(t, 'GET /readyz'),
  // Loopback clients or the token only: a client from elsewhere gets the unknown route's 404.
  'GET /metrics': async (t) => [await call(t, 'GET /metrics', { token: TEST_ENV.METRICS_TOKEN }), await call(t, 'GET /metrics')],
  'GET /openapi.json': (t) => call(t, 'GET /openapi.json'),
  'GET /widget.js': (t) => call(t, 'GET /widget.js'),
  'GET /widget/i18n/{language}.json': async (t) => [await call(t, 'GET /widget/i18n/{language}.json'), await call(t, 'GET /widget/i18n/{language}.json', { params: { language: 'xx' } })],
  'GET /brand/logo.svg': (t) => call(t, 'GET /brand/logo.svg'),
  'GET /chat/{key}': async (t) => [await call(t, 'GET /chat/{key}'), await call(t, 'GET /chat/{key}', { params: { key: 'not a key!' } })],
  'GET /inbox': async (t) => [await call(t, 'GET /inbox'), await request('GET', '/inbox/conversations/0b4e7a52-6f1c-4a8e-9d3b-2c5f8e1a7b90')],
};

// The spec's counts plus the extensions: v1's catch-up endpoint, the portal's five webhook endpoints and
// two routing endpoints, the agent's status endpoints, the widget's answer feedback.
const SPEC_COUNTS = { v1: 8, portal: 21, agent: 36, widget: 8 };

/** Every JSON Schema object the document embeds (components, parameters, bodies, answers, events). */
function embeddedSchemas(validator: DocumentValidator): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = Object.entries(validator.doc.components.schemas).map(([name, schema]) => [`components/${name}`, schema]);
  for (const [path, operations] of Object.entries(validator.doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters) found.push([`${where} parameter ${parameter.name}`, parameter.schema]);
      if (operation.requestBody) found.push([`${where} body`, operation.requestBody.content['application/json'].schema]);
      for (const [status, answer] of Object.entries(operation.responses)) {
        for (const [media, content] of Object.entries(answer.content ?? {})) {
          found.push([`${where} ${status} ${media}`, content.schema]);
          for (const [event, schema] of Object.entries(content['x-events'] ?? {})) found.push([`${where} ${status} event ${event}`, schema]);
        }
      }
    }
  }
  return found;
}

describe('OpenAPI 3.1 document (GET /openapi.json)', function () {
  this.timeout(120_000);
  let validator: DocumentValidator;
  let tenant: SweepTenant;

  before(async () => {
    validator = await loadDocument();
    pushServer = await serveWithPush();
    tenant = await sweepTenant();
  });
  after(() => pushServer?.close());

  it('is a valid OpenAPI 3.1 document, and every schema in it is valid JSON Schema 2020-12', () => {
    const validate = openApi31Validator(validator.ajv);
    assert.ok(validate(validator.doc), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
    assert.equal(validator.doc.openapi, '3.1.0');
    const schemas = embeddedSchemas(validator);
    assert.ok(schemas.length > 300, `only ${schemas.length} schemas found`);
    for (const [where, schema] of schemas) {
      assert.ok(validator.ajv.validateSchema(schema as object), `${where}: ${JSON.stringify(validator.ajv.errors)}`);
    }
    const ids = Object.values(validator.doc.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  // The surfaces mount nothing but their declarations; the walk keeps the hand-mounted operations routes in step with theirs.
  it('documents every route the app serves, and nothing it does not serve', () => {
    const served = servedRoutes(fullApp());
    assert.ok(served.length >= 60, `only ${served.length} routes found: the walk of the router stack is broken`);
    const undocumented = served.filter((route) => !ENDPOINTS.some((endpoint) => endpoint.method === route.method && documents(endpoint.path, route)));
    assert.deepEqual(undocumented.map((route) => `${route.method.toUpperCase()} ${String(route.path)}`), [], 'routes mounted outside a declaration and missing from src/openapi/opsEndpoints.ts');
    const phantom = ENDPOINTS.filter((endpoint) => !served.some((route) => endpoint.method === route.method && documents(endpoint.path, route)));
    assert.deepEqual(phantom.map(endpointKey), [], 'documented routes the app does not serve');
  });

  it("keeps each surface's endpoint count: v1 8, portal 21, agent 36, widget 8", () => {
    const counts = Object.fromEntries(Object.keys(SPEC_COUNTS).map((surface) => [surface, ENDPOINTS.filter((endpoint) => endpoint.surface === surface).length]));
    assert.deepEqual(counts, SPEC_COUNTS);
  });

  it('shows examples that the route schemas accept, and that the documented request schemas accept too', () => {
    for (const endpoint of ENDPOINTS) {
      const key = endpointKey(endpoint);
      for (const example of endpoint.body?.examples ?? []) {
        const parsed = endpoint.body!.schema.safeParse(example);
        assert.ok(parsed.success, `${key}: ${JSON.stringify(example)} ${parsed.error?.message}`);
        const validate = validator.validatorAt('paths', endpoint.path, endpoint.method, 'requestBody', 'content', 'application/json', 'schema');
        assert.ok(validate(example), `${key}: ${JSON.stringify(validate.errors)}`);
      }
      for (const example of endpoint.query?.examples ?? []) {
        const parsed = endpoint.query!.schema.safeParse(example);
        assert.ok(parsed.success, `${key}: ${JSON.stringify(example)} ${parsed.error?.message}`);
      }
    }
    // The document is generated from the route schemas: a limit in zod is a limit in the document.
    const stream = validator.operation('/widget/{key}/stream', 'post').requestBody!.content['application/json'].schema as { properties: Record<string, { maxLength?: number }>; required: string[] };
    assert.equal(stream.properties.message?.maxLength, 4000);
    assert.deepEqual([...stream.required].sort(), ['message', 'visitor_id']);
  });

  it('tells a conforming answer from one that is not', () => {
    assert.deepEqual(validator.problems('/api/v1/me', 'get', 200, { user: { id: 1, name: 'A', email: 'a@b.c', role: 'owner' }, company: { id: 2, name: 'B', slug: 'b', plan: 'pro' } }), []);
    assert.ok(validator.problems('/api/v1/me', 'get', 200, { user: { id: '1', name: 'A', email: 'a@b.c', role: 'owner' }, company: { id: 2, name: 'B', slug: 'b', plan: 'pro' } }).length);
    assert.ok(validator.problems('/api/v1/me', 'get', 200, { user: { id: 1, name: 'A', email: 'a@b.c', role: 'owner', extra: 1 }, company: { id: 2, name: 'B', slug: 'b', plan: 'pro' } }).length);
    assert.ok(validator.problems('/api/agent/inbox', 'get', 200, { conversations: [] }).length);
    assert.deepEqual(validator.problems('/api/agent/inbox', 'get', 999, {}), ['status 999 is not documented']);
  });

  it('has a scenario for every documented endpoint', () => {
    assert.deepEqual(Object.keys(SCENARIOS).sort(), ENDPOINTS.map(endpointKey).sort());
  });

  for (const endpoint of ENDPOINTS) {
    const key = endpointKey(endpoint);
    it(`${key} answers in its documented shape`, async () => {
      const scenario = SCENARIOS[key];
      assert.ok(scenario, `no scenario for ${key}`);
      const answers = [(await scenario(tenant))].flat();
      const operation = validator.operation(endpoint.path, endpoint.method);
      for (const answer of answers) {
        const context = `${key} -> ${answer.status} ${typeof answer.body === 'string' ? answer.body.slice(0, 200) : JSON.stringify(answer.body)?.slice(0, 400)}`;
        assert.ok(answer.status < 500 || endpoint.surface === 'ops', context);
        const documented = operation.responses[String(answer.status)];
        assert.ok(documented, `${context}: status not documented`);
        const contentType = answer.headers.get('content-type') ?? '';
        const media = Object.keys(documented.content ?? {})[0];
        if (media === 'application/json') {
          assert.match(contentType, /^application\/json/, context);
          assert.deepEqual(validator.problems(endpoint.path, endpoint.method, answer.status, answer.body), [], context);
        } else if (media) {
          assert.ok(contentType.startsWith(media), `${context}: content type ${contentType}, documented ${media}`);
          for (const event of answer.events ?? []) {
            const validate = validator.validatorAt('paths', endpoint.path, endpoint.method, 'responses', String(answer.status), 'content', media, 'x-events', event.event);
            assert.ok(validate(event.data), `${key} event ${event.event} ${JSON.stringify(event.data)}: ${JSON.stringify(validate.errors)}`);
          }
        }
        const limit = operation['x-rate-limit'];
        assert.equal(answer.headers.get('x-ratelimit-limit'), limit ? String(limit.points) : null, `${key}: X-RateLimit-Limit against the documented limit`);
      }
    });
  }
});
