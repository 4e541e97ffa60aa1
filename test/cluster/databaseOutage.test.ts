import { strict as assert } from 'node:assert';
import { ENDPOINTS } from '../../src/surfaces/endpoints';
import { endpointKey, type Endpoint } from '../../src/openapi/registry';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { request, type Reply } from '../support/http';
import { freshIp } from '../support/portal';
import { cliOk } from '../support/processes';
import { connect, refused } from '../support/sockets';
import { postStream } from '../support/sse';
import type { TcpProxy } from '../support/tcpProxy';

const PASSWORD = 'password-123';
const level = (entry: Record<string, unknown>) => Number(entry.level);

/**
 * PostgreSQL unreachable from one web process (it reaches the database through a proxy the test
 * cuts; the other node and everyone else keep theirs): every route answers 503 with `Retry-After`,
 * never 500, and the node warns (throttled) instead of logging an error stack per request. So does
 * an actor turn running on that node for a request that entered elsewhere, and Socket.IO's handshake.
 */
describe('a web node whose database is unreachable', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let proxy: TcpProxy;
  let direct: ClusterNode;
  let cutOff: ClusterNode;
  let chatbotKey: string;
  let tokens: Record<'api' | 'portal' | 'agent', string>;
  /** A conversation whose actor lives on the node that loses its database. */
  let conversationId: string;
  /** Its visitor: one per attempt, since a visitor's next message would continue their open conversation. */
  let visitorId: string;

  before(async () => {
    deployment = await Deployment.create();
    let databaseUrl: string;
    ({ proxy, databaseUrl } = await deployment.databaseBehindProxy());
    [direct, cutOff] = await Promise.all([deployment.start('direct'), deployment.start('cut-off', { DATABASE_URL: databaseUrl })]);
    await deployment.settled();

    const env = deployment.env();
    const owner = { email: 'owner@outage.test', password: PASSWORD };
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Outage Shop', '--plan', 'pro', '--portal', '--owner-email', owner.email, '--owner-password', PASSWORD, '--owner-name', 'Olga'], env)) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], env)) as { chatbot: { public_key: string } };
    chatbotKey = chatbot.public_key;
    const token = async (ability: string) => ((await cliOk(['token', 'create', '--user', owner.email, '--ability', ability], env)) as { token: string }).token;
    tokens = { api: await token('api'), portal: await token('portal'), agent: await token('agent') };
    // Opened through the other node until one lands on a shard the cut-off node serves (half of them do).
    for (let attempt = 0; !conversationId; attempt++) {
      assert.ok(attempt < 20, 'no conversation landed on the cut-off node');
      const visitor = `visitor-outage-${attempt}`;
      const opened = await postStream(`/widget/${chatbotKey}/stream`, { visitor_id: visitor, message: 'Hello?' }, { 'X-Forwarded-For': freshIp() }, direct.url);
      assert.equal(opened.events[0]?.event, 'meta', JSON.stringify(opened.body ?? opened.events));
      const id = opened.events[0]!.data.conversation_id as string;
      if ((await deployment.ownerOf('conversation', id)) === cutOff) [conversationId, visitorId] = [id, visitor];
    }
  });
  after(async () => {
    await deployment?.destroy();
    await proxy?.close();
  });

  /** Cuts the node's database for `work`, then gives it back and waits until the node answers again. */
  async function withoutDatabase<T>(work: () => Promise<T>): Promise<T> {
    proxy.cut();
    try {
      return await work();
    } finally {
      proxy.restore();
      const me = await eventually(() => request('GET', '/api/v1/me', { token: tokens.api, baseUrl: cutOff.url }), (reply) => reply.status === 200, 15_000);
      assert.equal(me.status, 200, 'the node serves again once its database is back');
    }
  }

  /** One request to an endpoint with valid-looking input (its first examples; ids that look real). */
  function call(endpoint: Endpoint, baseUrl: string): Promise<Reply> {
    const params: Record<string, string> = { key: chatbotKey, conversation: conversationId, source: '1', provider: 'openai', tag: '1', canned: '1', suggestion: '1', visitor: visitorId };
    const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
    const query = endpoint.query ? `?${new URLSearchParams(endpoint.query.examples[0]).toString()}` : '';
    const token = endpoint.auth === 'none' ? undefined : tokens[endpoint.auth];
    return request(endpoint.method.toUpperCase(), path + query, { token, body: endpoint.body?.examples[0], baseUrl, headers: { 'X-Forwarded-For': freshIp() } });
  }

  it('every route answers 503 database_unavailable with Retry-After (ops routes at least never 500), warning instead of logging errors', async () => {
    const logged = cutOff.process.lines.length;
    const started = Date.now();
    const wrong = await withoutDatabase(async () => {
      const problems: string[] = [];
      for (const endpoint of ENDPOINTS) {
        const reply = await call(endpoint, cutOff.url);
        const what = `${endpointKey(endpoint)} -> ${reply.status} ${JSON.stringify(reply.body).slice(0, 160)}`;
        if (endpoint.surface === 'ops') {
          if (reply.status >= 500 && reply.status !== 503) problems.push(what);
          continue;
        }
        const body = reply.body as Record<string, unknown>;
        if (reply.status !== 503 || body.code !== 'database_unavailable' || typeof body.message !== 'string' || reply.headers.get('retry-after') !== '5') problems.push(what);
      }
      return problems;
    });
    const elapsed = Date.now() - started;
    assert.deepEqual(wrong, []);

    const lines = cutOff.process.lines.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(lines.filter((entry) => level(entry) >= 50).map((entry) => entry.msg), [], 'nothing at error level');
    const warnings = lines.filter((entry) => entry.msg === 'database unavailable');
    assert.ok(warnings.length >= 1 && warnings.length <= 1 + Math.ceil(elapsed / 5_000), `${warnings.length} outage warnings in ${elapsed} ms`);
    assert.equal(typeof warnings[0]!.cause, 'string');
    const refusedLines = lines.filter((entry) => (entry.res as { statusCode?: number } | undefined)?.statusCode === 503);
    assert.ok(refusedLines.length > 20, 'each 503 has its request line');
    assert.ok(refusedLines.every((entry) => level(entry) === 40 && entry.err === undefined), 'a 503 line is a warning without a stack');
  });

  it('a turn whose actor cannot reach the database answers 503 through another node, before any stream starts', async () => {
    const [stream, reply] = await withoutDatabase(() =>
      Promise.all([
        postStream(`/widget/${chatbotKey}/stream`, { visitor_id: visitorId, message: 'Still there?', conversation_id: conversationId }, { 'X-Forwarded-For': freshIp() }, direct.url),
        request('POST', `/api/agent/conversations/${conversationId}/reply`, { token: tokens.agent, body: { body: 'One moment.' }, baseUrl: direct.url }),
      ]),
    );
    assert.equal(stream.status, 503, JSON.stringify(stream.body ?? stream.events));
    assert.equal(stream.body.code, 'database_unavailable');
    assert.equal(stream.headers.get('retry-after'), '5');
    assert.deepEqual([reply.status, reply.body.code, reply.headers.get('retry-after')], [503, 'database_unavailable', '5']);
    const rows = await deployment.query<{ content: string }>("SELECT content FROM messages WHERE content IN ('Still there?', 'One moment.')");
    assert.deepEqual(rows, [], 'nothing was stored');
  });

  it('refuses a realtime connection as unavailable (not unauthenticated, which would sign the app out), then accepts it', async () => {
    const refusal = await withoutDatabase(() => refused(cutOff.url, { token: tokens.agent }));
    assert.deepEqual(refusal.data, { code: 'database_unavailable', retry_after: 5 });
    assert.equal(typeof refusal.message, 'string');
    (await connect(cutOff.url, { token: tokens.agent })).close();
  });
});
