import { strict as assert } from 'node:assert';
import type { TokenAbility } from '../../config/roles';
import * as make from '../support/factories';
import { freshIp } from '../support/portal';
import { RequestSampler } from '../support/sampleRequest';
import { loadDocument, type DocumentValidator, type Operation } from '../support/sweepDocument';
import { pool } from '../support/sweepRun';
import { serveWithPush } from '../support/sweepServers';
import { fillPath, sweepTenant, withReferences, type SweepTenant } from '../support/sweepTenant';

type Schema = Record<string, unknown>;

/** One request a generated client could make: the document's examples and least values, nothing else. */
interface GeneratedRequest {
  label: string;
  body?: Record<string, unknown>;
  query: Record<string, string>;
  headers: Record<string, string>;
}

interface Answer {
  label: string;
  status: number;
  text: string;
}

/** Header parameters whose value names a record of the workspace, by the reference that holds it. */
const HEADER_REFERENCES: Record<string, string> = { 'X-Visitor-Id': 'visitor_id', 'X-Identity': 'identity', 'X-Continue': 'continue' };

const SCHEMES: Record<string, TokenAbility> = { apiToken: 'api', portalToken: 'portal', agentToken: 'agent' };

/** Every operation of the document, as [method, path, operation]. */
const operationsOf = (validator: DocumentValidator) =>
  Object.entries(validator.doc.paths).flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => [method, path, operation] as const));

/** The least request (required fields only, no examples), and one full request per example the document gives. */
function requestsOf(operation: Operation, sampler: RequestSampler, references: Record<string, unknown>): GeneratedRequest[] {
  const content = operation.requestBody?.content['application/json'];
  const bodySchema = content?.schema as Schema | undefined;
  const examples = content ? Object.values(content.examples).map((example) => example.value) : [];
  // Deprecated parameters are left out, as generated clients leave them; header values that name a record are the tenant's.
  const parameters = (where: string, full: boolean) => {
    const values: Record<string, string> = {};
    for (const parameter of operation.parameters) {
      if (parameter.in !== where || parameter.deprecated || !(parameter.required || full)) continue;
      const example = full ? parameter.example : undefined;
      const value = where === 'header' && HEADER_REFERENCES[parameter.name] ? references[HEADER_REFERENCES[parameter.name]!] : sampler.sample(parameter.schema as Schema, example, full);
      values[parameter.name] = String(value);
    }
    return where === 'query' ? (withReferences(values, references) as Record<string, string>) : values;
  };
  const body = (example: unknown, full: boolean) => (bodySchema ? withReferences(sampler.sample(bodySchema, example, full) as Record<string, unknown>, references) : undefined);
  const request = (label: string, example: unknown, full: boolean) => ({ label, body: body(example, full), query: parameters('query', full), headers: parameters('header', full) });
  const requests: GeneratedRequest[] = [request('least', undefined, false)];
  (examples.length ? examples : [undefined]).forEach((example, index) => requests.push(request(`full ${index + 1}`, example, true)));
  return requests;
}

async function send(baseUrl: string, method: string, path: string, token: string | undefined, request: GeneratedRequest): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers, Accept: 'application/json', 'X-Forwarded-For': freshIp() };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  const search = new URLSearchParams(request.query).toString();
  const response = await fetch(`${baseUrl}${path}${search ? `?${search}` : ''}`, {
    method: method.toUpperCase(),
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: AbortSignal.timeout(30_000),
  });
  return { label: `${request.label} ${JSON.stringify(request.body ?? null).slice(0, 200)} ${search} ${JSON.stringify(request.headers)}`, status: response.status, text: (await response.text()).slice(0, 300) };
}

/** A workspace of its own per operation (a sign-out or a reset must not change what the next one sees), with an AI provider key. */
async function tenantFor(path: string): Promise<SweepTenant> {
  const tenant = await sweepTenant({ liveVisitor: path.includes('{visitor}') });
  await make.providerKey(tenant.company, tenant.bot.provider);
  return tenant;
}

describe('OpenAPI document: requests generated from it are never refused as invalid', function () {
  this.timeout(300_000);
  let validator: DocumentValidator;
  let sampler: RequestSampler;
  let pushServer: { url: string; close(): Promise<void> };

  before(async () => {
    validator = await loadDocument();
    sampler = new RequestSampler(validator.ajv);
    pushServer = await serveWithPush();
  });
  after(() => pushServer?.close());

  it('answers every operation, called with the least and the fullest values its schemas allow, without a 422 or a 5xx', async () => {
    const operations = operationsOf(validator);
    assert.ok(operations.length >= 68, `only ${operations.length} operations`);
    const failures: string[] = [];
    let sent = 0;
    await pool(operations, 4, async ([method, path, operation]) => {
      const tenant = await tenantFor(path);
      const scheme = Object.keys(operation.security?.[0] ?? {})[0];
      const ability = scheme ? SCHEMES[scheme] : undefined;
      for (const request of requestsOf(operation, sampler, tenant.references)) {
        const schema = operation.requestBody?.content['application/json'].schema as Schema | undefined;
        if (schema && request.body) assert.ok(sampler.accepts(schema, request.body), `${method} ${path}: the generator made a body the document refuses: ${JSON.stringify(request.body)}`);
        // Signing out ends the token: each request gets one of its own.
        const token = ability && (path.endsWith('/logout') ? await tenant.freshToken(ability) : tenant.tokens[ability]);
        const answer = await send(pushServer.url, method, fillPath(path, tenant.params), token, request);
        sent++;
        if (answer.status === 422 || answer.status >= 500 || !operation.responses[String(answer.status)]) {
          failures.push(`${method.toUpperCase()} ${path} (${answer.label}) -> ${answer.status}: ${answer.text}`);
        }
      }
    });
    assert.deepEqual(failures, [], `${failures.length} of ${sent} generated requests were refused`);
  });

  // Values a generated client found the document allowed and the server refused, before each rule was a pattern, length or enum.
  const GAPS: Array<{ method: string; path: string; body: (t: SweepTenant) => Record<string, unknown>; field: string }> = [
    { method: 'post', path: '/api/portal/login', body: (t) => ({ email: t.owner.email, password: '' }), field: 'password' },
    { method: 'post', path: '/api/agent/login', body: (t) => ({ email: t.owner.email, password: '' }), field: 'password' },
    { method: 'post', path: '/api/agent/conversations/{conversation}/revenue', body: () => ({ amount: 10, currency: 'Lvl2f' }), field: 'currency' },
    { method: 'patch', path: '/api/agent/notifications', body: () => ({ quiet_hours_start: '0QICW', quiet_hours_end: '07:00' }), field: 'quiet_hours_start' },
    { method: 'post', path: '/widget/{key}/stream', body: (t) => ({ visitor_id: t.visitorKey, message: 'Hello?', identity: 'not-a-jwt' }), field: 'identity' },
  ];

  for (const gap of GAPS) {
    it(`${gap.method.toUpperCase()} ${gap.path}: the document refuses the ${gap.field} the server refuses, and the server answers 422`, async () => {
      const tenant = await sweepTenant({ liveVisitor: false });
      const operation = validator.operation(gap.path, gap.method);
      const body = gap.body(tenant);
      assert.equal(sampler.accepts(operation.requestBody!.content['application/json'].schema as Schema, body), false, `the document allows ${JSON.stringify(body)}`);
      const ability = SCHEMES[Object.keys(operation.security?.[0] ?? {})[0] ?? ''];
      const answer = await send(pushServer.url, gap.method, fillPath(gap.path, tenant.params), ability && tenant.tokens[ability], { label: gap.field, body, query: {}, headers: {} });
      assert.equal(answer.status, 422, answer.text);
      assert.ok((JSON.parse(answer.text) as { errors: Record<string, string[]> }).errors[gap.field], answer.text);
    });
  }
});
