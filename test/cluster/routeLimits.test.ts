import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { request, type Reply } from '../support/http';
import { cliOk } from '../support/processes';

/** The heartbeat's limit (`perIp('widget-heartbeat', 240)`) and what a node reserves of it at a time (src/http/hotRoutes.ts). */
const POINTS = 240;
const RESERVE = 8;
const BEATS = 300;

/**
 * Issue 23: the hot routes' per-IP limits are counted in Redis but reserved a few points at a time
 * by each node (src/limits/reservedLimiter.ts). Across two real web processes on one Redis, one
 * client address never gets more than the limit through, is refused at most `nodes x (reserve - 1)`
 * points early, and every refusal is the documented 429 (docs/api.md, "Rate limits").
 */
describe('route limits across real web processes', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let nodes: ClusterNode[];
  let base: string;

  before(async () => {
    deployment = await Deployment.create();
    nodes = await Promise.all([deployment.start('a'), deployment.start('b')]);
    await deployment.settled();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Limits Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    base = `/widget/${chatbot.public_key}`;
  });
  after(() => deployment?.destroy());

  it('one address beating through both nodes: never more than the limit, at most nodes x (reserve - 1) refused early, 429s as documented', async () => {
    const ip = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const beat = (node: ClusterNode) =>
      request('POST', `${base}/heartbeat`, { baseUrl: node.url, body: { visitor_id: 'limits-visitor', url: 'https://shop.example/' }, headers: { 'X-Forwarded-For': ip } });
    // Both nodes at once, a few in flight on each, as a busy office behind one address would beat.
    const answers: Array<{ node: string; reply: Reply }> = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        while (sent < BEATS) {
          sent++;
          const node = nodes[worker % 2]!;
          answers.push({ node: node.name, reply: await beat(node) });
        }
      }),
    );

    const unexpected = answers.filter((a) => a.reply.status !== 200 && a.reply.status !== 429);
    assert.deepEqual(unexpected.map((a) => [a.reply.status, a.reply.body]), []);
    const passed = answers.filter((a) => a.reply.status === 200);
    assert.ok(passed.length <= POINTS, `${passed.length} beats got through a limit of ${POINTS}`);
    assert.ok(passed.length >= POINTS - nodes.length * (RESERVE - 1), `only ${passed.length} of ${POINTS} got through`);
    assert.ok(new Set(passed.map((a) => a.node)).size === 2, 'both nodes answered');

    for (const { reply } of answers) assert.equal(reply.headers.get('x-ratelimit-limit'), String(POINTS));
    for (const { reply } of answers.filter((a) => a.reply.status === 429)) {
      assert.equal(reply.body.code, 'too_many_requests');
      assert.equal(reply.headers.get('x-ratelimit-remaining'), '0');
      const retryAfter = Number(reply.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    }
    // Remaining as each node knows it: within the limit, and a new figure on every answer that node gives (it only counts down).
    for (const name of ['a', 'b']) {
      const remaining = passed.filter((a) => a.node === name).map((a) => Number(a.reply.headers.get('x-ratelimit-remaining')));
      assert.ok(remaining.every((r) => r >= 0 && r < POINTS), `${name}: ${remaining.join(',')}`);
      assert.equal(new Set(remaining).size, remaining.length, `${name} counts down: ${remaining.join(',')}`);
    }
    // Spent is spent, on either node, until the window ends.
    for (const node of nodes) assert.equal((await beat(node)).status, 429);
    // Another address has its own budget.
    assert.equal((await request('POST', `${base}/heartbeat`, { baseUrl: nodes[0]!.url, body: { visitor_id: 'other-visitor', url: 'https://shop.example/' }, headers: { 'X-Forwarded-For': '10.78.0.1' } })).status, 200);
  });
});
