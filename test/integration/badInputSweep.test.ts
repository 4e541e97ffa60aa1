import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENDPOINTS } from '../../src/surfaces/endpoints';
import { requestJsonSchema } from '../../src/openapi/jsonSchema';
import { endpointKey, pathParams, type Endpoint } from '../../src/openapi/registry';
import { server } from '../support/hooks';
import { request } from '../support/http';
import { bodyCases, queryCases, type SweepCase } from '../support/sweepCases';
import { loadDocument, type DocumentValidator } from '../support/sweepDocument';
import { expectationOf, pool, runCase, type Outcome, type Target } from '../support/sweepRun';
import { serveWithPush } from '../support/sweepServers';
import { changedTables, tenantSnapshot } from '../support/sweepSnapshot';
import { fillPath, sweepTenant, withReferences } from '../support/sweepTenant';

/** Requests in flight per endpoint, and endpoints swept at once. */
const WIDTH = 8;
const ENDPOINTS_AT_ONCE = 4;

/** Routes that need a server with web push configured to get past their 503 to their validation. */
const NEEDS_PUSH = new Set(['POST /api/agent/push/subscriptions']);

interface Result {
  outcomes: Outcome[];
  written: string[];
  millis: number;
}

function casesOf(endpoint: Endpoint, references: Record<string, unknown>): SweepCase[] {
  if (endpoint.body) return bodyCases(requestJsonSchema(endpoint.body.schema), endpoint.body.examples.map((example) => withReferences(example, references)));
  return queryCases(requestJsonSchema(endpoint.query!.schema), withReferences(endpoint.query!.examples[0]!, references));
}

/** Waits until nothing more is being written for the workspace (a heartbeat's presence is written behind). */
async function settled(companyId: number): Promise<Record<string, string>> {
  let before = await tenantSnapshot(companyId);
  for (let attempt = 0; attempt < 5; attempt++) {
    await sleep(1_200);
    const after = await tenantSnapshot(companyId);
    if (!changedTables(before, after).length) return after;
    before = after;
  }
  throw new Error('the workspace never stopped changing');
}

/**
 * One endpoint in a workspace of its own, with ids that exist (so the route gets as far as its
 * validation). First every input its own schema rejects, then a snapshot comparison (nothing may have
 * been written), then the edge cases the schema accepts.
 */
async function sweep(endpoint: Endpoint, validator: DocumentValidator, pushUrl: string): Promise<Result> {
  const key = endpointKey(endpoint);
  const started = Date.now();
  const live = pathParams(endpoint.path).includes('visitor');
  const tenant = await sweepTenant({ liveVisitor: live });
  const cases = casesOf(endpoint, tenant.references);
  const refused = cases.filter((item) => expectationOf(endpoint, item) !== 'valid');
  const accepted = cases.filter((item) => expectationOf(endpoint, item) === 'valid');
  // Even the most lenient schema (a free-form optional string) refuses something: an array, an object.
  assert.ok(cases.length > 10 && refused.length > 0, `${key}: only ${cases.length} inputs (${refused.length} malformed) were generated`);

  // Identities for a per-user limit are made before the snapshot: making them is not the route writing.
  const ability = endpoint.auth === 'none' ? 'agent' : endpoint.auth;
  const spares = endpoint.limit?.by === 'user' ? Math.ceil(refused.length / endpoint.limit.points) + 2 : 0;
  const spare = await Promise.all(Array.from({ length: spares }, () => tenant.freshToken(ability)));
  const target: Target = {
    endpoint,
    baseUrl: NEEDS_PUSH.has(key) ? pushUrl : server().url,
    path: fillPath(endpoint.path, tenant.params),
    token: endpoint.auth === 'none' ? undefined : tenant.tokens[endpoint.auth],
    freshToken: async () => spare.shift() ?? tenant.freshToken(ability),
  };

  const before = live ? await settled(tenant.company.id) : await tenantSnapshot(tenant.company.id);
  const outcomes = await pool(refused, WIDTH, (item) => runCase(target, item, validator));
  const written = changedTables(before, await tenantSnapshot(tenant.company.id));
  outcomes.push(...(await pool(accepted, WIDTH, (item) => runCase(target, item, validator))));
  return { outcomes, written, millis: Date.now() - started };
}

describe('bad-input sweep: every endpoint with a body or query, malformed every way', function () {
  this.timeout(300_000);
  const swept = ENDPOINTS.filter((endpoint) => endpoint.body || endpoint.query);
  const results = new Map<string, Result>();
  let pushServer: { url: string; close(): Promise<void> } | undefined;

  before(async () => {
    const validator = await loadDocument();
    pushServer = await serveWithPush();
    await pool(swept, ENDPOINTS_AT_ONCE, async (endpoint) => results.set(endpointKey(endpoint), await sweep(endpoint, validator, pushServer!.url)));
  });
  after(() => pushServer?.close());

  it('sees a write when there is one (the snapshot can fail)', async () => {
    const tenant = await sweepTenant({ liveVisitor: false });
    const before = await tenantSnapshot(tenant.company.id);
    const note = await request('POST', fillPath('/api/agent/conversations/{conversation}/notes', tenant.params), { token: tenant.tokens.agent, body: { body: 'A note.' } });
    assert.equal(note.status, 201);
    const changed = changedTables(before, await tenantSnapshot(tenant.company.id)).map((change) => change.split(' ')[0]);
    assert.ok(changed.includes('notes'), changed.join(', '));
  });

  for (const endpoint of swept) {
    const key = endpointKey(endpoint);
    it(`${key}: a 4xx JSON error in its documented shape for every malformed input, nothing written, no 5xx or hang for any`, () => {
      const result = results.get(key)!;
      if (process.env.SWEEP_TIMING) console.log(`      ${result.outcomes.length} inputs in ${result.millis} ms`);
      const failures = result.outcomes
        .filter((outcome) => outcome.problems.length)
        .map((outcome) => `${outcome.label} -> ${outcome.status} (${outcome.expectation}): ${outcome.problems.join('; ')}`);
      if (result.written.length) failures.push(`the rejected inputs wrote to ${result.written.join(', ')}`);
      assert.deepEqual(failures, [], `${failures.length} of ${result.outcomes.length} inputs to ${key} were answered wrongly`);
    });
  }

  it('reports how many inputs were tried', () => {
    const outcomes = [...results].flatMap(([key, result]) => result.outcomes.map((outcome) => ({ key, outcome })));
    const count = (pick: (outcome: Outcome) => string) => {
      const counts: Record<string, number> = {};
      for (const { outcome } of outcomes) counts[pick(outcome)] = (counts[pick(outcome)] ?? 0) + 1;
      return counts;
    };
    const kinds = count((outcome) => outcome.expectation);
    const statuses = Object.entries(count((outcome) => String(outcome.status)))
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
    console.log(
      `      bad-input sweep: ${outcomes.length} inputs to ${results.size} endpoints: ${kinds.invalid ?? 0} refused by the route schemas, ` +
        `${kinds.transport ?? 0} before the route, ${kinds.node ?? 0} by Node, ${kinds.valid ?? 0} accepted edge cases; answers ${statuses}`,
    );
    assert.equal(results.size, swept.length);
    assert.ok(outcomes.length > 1000, `only ${outcomes.length} inputs were tried`);
  });
});
