import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { freshIp } from '../support/portal';
import { cliOk } from '../support/processes';
import { connect, type ClientSocket } from '../support/sockets';
import { hashSecret, randomSecret } from '../../src/security/tokens';

const AGENTS = 10;
const CAPACITY = 5;
const HANDOFFS = 200;

interface Agent {
  id: number;
  token: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The proof of issue 24 (docs/routing.md): 200 visitors ask for a person at once on 3 web nodes, 10
 * agents of capacity 5 work the queue down, and the node running the workspace's router is killed
 * halfway. No agent ever holds more than 5, no conversation is given twice, the queue is served in
 * the order the visitors asked, and every one of the 200 is served.
 */
describe('auto-assignment across web processes (200 handoffs, 10 agents, 3 nodes, a node killed)', function () {
  this.timeout(240_000);
  let deployment: Deployment;
  const sockets: ClientSocket[] = [];

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start('route-a'), deployment.start('route-b'), deployment.start('route-c')]);
    await deployment.settled();
  });
  after(async () => {
    sockets.forEach((socket) => socket.close());
    await deployment?.destroy();
  });

  /** Agents and their agent tokens in two statements (as the fan-out bench seeds them): issuing through the CLI costs a process each. */
  async function seedAgents(companyId: number): Promise<Agent[]> {
    const users = await deployment.query<{ id: number }>(
      `INSERT INTO users (company_id, name, email, password_hash, role)
       SELECT $1::int, 'Agent ' || g, 'route-' || $1::int || '-' || g || '@routing.test', 'no-password', 'agent' FROM generate_series(1, $2::int) g RETURNING id`,
      [companyId, AGENTS],
    );
    const secrets = users.map(() => randomSecret());
    const tokens = await deployment.query<{ id: number; user_id: number }>(
      `INSERT INTO access_tokens (user_id, company_id, name, ability, token_hash, expires_at)
       SELECT u, $1::int, 'agent app', 'agent', h, now() + interval '1 day' FROM unnest($2::int[], $3::text[]) AS t(u, h) RETURNING id, user_id`,
      [companyId, users.map((user) => user.id), secrets.map(hashSecret)],
    );
    return tokens.map((token) => ({ id: token.user_id, token: `${token.id}|${secrets[users.findIndex((user) => user.id === token.user_id)]!}` }));
  }

  it('never exceeds capacity, never gives a conversation twice, drains the queue in arrival order, and loses no one when the router\'s node dies', async () => {
    const env = deployment.env();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Rush Hour', '--plan', 'enterprise'], env)) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Front desk'], env)) as { chatbot: { id: number; public_key: string } };
    // The accept timer is out of the way here (the integration test covers it): every assignment stands.
    await deployment.query(`UPDATE companies SET settings = jsonb_build_object('routing', jsonb_build_object('mode', 'auto', 'capacity', $2::int, 'accept_seconds', 3600)) WHERE id = $1`, [
      company.id,
      CAPACITY,
    ]);
    const agents = await seedAgents(company.id);
    const conversations = await deployment.query<{ id: number; public_id: string; visitor_key: string }>(
      `INSERT INTO conversations (company_id, chatbot_id, visitor_key, status)
       SELECT $1::int, $2::int, 'rush-visitor-' || g, 'bot' FROM generate_series(1, $3::int) g RETURNING id, public_id, visitor_key`,
      [company.id, chatbot.id, HANDOFFS],
    );

    // The node that runs the router is the one killed later; agents keep their inbox open on the other two.
    const doomed = await deployment.ownerOf('routing', String(company.id));
    const survivors = deployment.live().filter((node) => node !== doomed) as [ClusterNode, ClusterNode];
    const nodeOf = (index: number) => survivors[index % 2]!;
    for (const [index, agent] of agents.entries()) sockets.push(await connect(nodeOf(index).url, { token: agent.token }));
    for (const agent of agents) {
      const state = await eventually(() => request('GET', '/api/agent/me/status', { token: agent.token, baseUrl: survivors[0].url }), (reply) => reply.body.available === true);
      assert.equal(state.body.available, true, JSON.stringify(state.body));
    }

    // Watch every agent's load for the whole run.
    let watching = true;
    let maxLoad = 0;
    const watcher = (async () => {
      while (watching) {
        const loads = await deployment.query<{ load: string }>(`SELECT count(*) AS load FROM conversations WHERE company_id = $1 AND status = 'agent' GROUP BY assigned_user_id`, [company.id]);
        maxLoad = Math.max(maxLoad, ...loads.map((row) => Number(row.load)));
        await pause(20);
      }
    })();

    // 200 visitors ask at once, spread over the three nodes. Two cores serving 200 turns at once may
    // answer some 503 (a turn past its deadline, a shard moving while a lease renewal was starved):
    // the widget asks again after `Retry-After`, and so does this client. A repeated handoff changes nothing.
    const nodes = deployment.live();
    const handoff = async (c: { public_id: string; visitor_key: string }, index: number) => {
      for (let attempt = 0; ; attempt++) {
        const answer = await request('POST', `/widget/${chatbot.public_key}/handoff`, {
          body: { visitor_id: c.visitor_key, conversation_id: c.public_id },
          headers: { 'X-Forwarded-For': freshIp() },
          baseUrl: nodes[(index + attempt) % nodes.length]!.url,
        });
        if (answer.status !== 503 || attempt === 10) return answer;
        await pause(Number(answer.headers.get('retry-after') ?? 1) * 1000);
      }
    };
    const rushStarted = Date.now();
    const answers = await Promise.all(conversations.map(handoff));
    console.log(`    the rush: ${Date.now() - rushStarted} ms, ${answers.filter((a) => a.body.queue_position === null).length} assigned at once`);
    assert.deepEqual(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body), []);
    const assignedAtOnce = answers.filter((answer) => answer.body.queue_position === null && answer.body.handoff_state === 'human_connected').length;
    assert.ok(answers.every((answer) => answer.body.queue_position === null || answer.body.queue_position >= 1));

    // Who waits once the rush settled, in the order they asked.
    await eventually(() => deployment.query(`SELECT 1 FROM conversations WHERE company_id = $1 AND status = 'agent'`, [company.id]), (rows) => rows.length === AGENTS * CAPACITY, 60_000);
    const queued = await deployment.query<{ id: number }>(
      `SELECT id FROM conversations WHERE company_id = $1 AND handoff_state = 'handoff_pending' AND assigned_user_id IS NULL ORDER BY handoff_requested_at, id`,
      [company.id],
    );
    assert.equal(queued.length, HANDOFFS - AGENTS * CAPACITY, 'every agent is full and the rest wait');
    assert.ok(assignedAtOnce <= AGENTS * CAPACITY, `${assignedAtOnce} answered as assigned`);

    // Agents resolve what they hold, oldest first, through the surviving nodes; halfway, the router's node is killed.
    const resolvedCount = async () => Number((await deployment.query<{ n: string }>(`SELECT count(*) AS n FROM conversations WHERE company_id = $1 AND status = 'closed'`, [company.id]))[0]!.n);
    const deadline = Date.now() + 150_000;
    let killed = false;
    const work = async (agent: Agent, index: number) => {
      while (Date.now() < deadline) {
        const [held] = await deployment.query<{ public_id: string }>(
          `SELECT public_id FROM conversations WHERE assigned_user_id = $1 AND status = 'agent' ORDER BY routed_at LIMIT 1`,
          [agent.id],
        );
        if (!held) {
          if ((await resolvedCount()) === HANDOFFS) return;
          await pause(50);
          continue;
        }
        const reply = await request('POST', `/api/agent/conversations/${held.public_id}/resolve`, { token: agent.token, baseUrl: nodeOf(index).url }).catch(() => undefined);
        // A conversation whose owner was the killed node answers 503 until its shard moves: try again.
        if (reply?.status !== 200) await pause(200);
        if (!killed && (await resolvedCount()) >= 100) {
          killed = true;
          await doomed.kill('SIGKILL');
        }
      }
    };
    const drainStarted = Date.now();
    await Promise.all(agents.map(work));
    console.log(`    the drain: ${Date.now() - drainStarted} ms`);
    watching = false;
    await watcher;

    assert.ok(killed, 'the router\'s node was killed mid-drain');
    assert.equal(await resolvedCount(), HANDOFFS, 'every visitor was served: nobody lost with the killed node');
    assert.ok(maxLoad <= CAPACITY, `an agent held ${maxLoad} at once`);

    // Each conversation was given once, to the agent who then resolved it.
    const events = await deployment.query<{ conversation_id: number; type: string; user_id: number; source: string }>(
      `SELECT conversation_id, type, user_id, source FROM conversation_events WHERE company_id = $1 AND type IN ('assigned', 'reassigned', 'resolved') ORDER BY created_at, id`,
      [company.id],
    );
    const assignedTo = new Map<number, number[]>();
    for (const event of events.filter((e) => e.type === 'assigned')) assignedTo.set(event.conversation_id, [...(assignedTo.get(event.conversation_id) ?? []), event.user_id]);
    assert.equal(assignedTo.size, HANDOFFS);
    assert.deepEqual([...assignedTo.values()].filter((holders) => holders.length !== 1), [], 'no conversation given twice');
    assert.deepEqual(events.filter((e) => e.type === 'reassigned'), []);
    for (const event of events.filter((e) => e.type === 'resolved')) assert.equal(event.user_id, assignedTo.get(event.conversation_id)![0]);

    // The queue was served first come first served, across the failover too.
    const queuedIds = new Set(queued.map((row) => row.id));
    const servedOrder = events.filter((e) => e.type === 'assigned' && queuedIds.has(e.conversation_id)).map((e) => e.conversation_id);
    assert.deepEqual(servedOrder, queued.map((row) => row.id));
  });
});
