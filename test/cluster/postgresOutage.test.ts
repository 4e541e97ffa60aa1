import { strict as assert } from 'node:assert';
import type { ClusterNode } from '../support/cluster/node';
import { Deployment } from '../support/cluster/deployment';
import { eventually } from '../support/eventually';
import type { TcpProxy } from '../support/tcpProxy';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Long enough for the node's own sessions (its database lock, its LISTEN) to be deep in their
 * reconnect back-off: with the old 5 s cap the lock came back 4.75 s after a cut this long ended.
 */
const OUTAGE_MS = 8_000;

/** What an actor turn answers, or what failed on the way (the control port answers 500 for an error that is not the app's). */
async function increment(node: ClusterNode, id: string): Promise<{ ok: boolean; what: string }> {
  try {
    const result = await node.ask('probe', id, { type: 'increment' });
    return 'value' in result ? { ok: true, what: 'answered' } : { ok: false, what: result.error.code };
  } catch (error) {
    return { ok: false, what: (error as Error).message };
  }
}

async function readyz(node: ClusterNode): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * A web node whose PostgreSQL goes away and comes back: a fenced actor turn (the chaos suite's probe
 * does the same through an agent reply) is answered again as soon as the database accepts connections
 * (the pool opens new connections on demand, with no back-off of its own), and the node is ready
 * again, its database lock taken back, within about a second. PostgreSQL is "away" for this node
 * only: it reaches the real server through a proxy that drops every connection and refuses new ones.
 * The bounds are generous for a busy machine; what they catch is a wait of seconds after the
 * database is back (the lock's back-off, before, kept the node unready 4.75 s after this outage).
 */
describe('a web node while PostgreSQL is away, and once it is back', function () {
  this.timeout(90_000);
  let deployment: Deployment;
  let proxy: TcpProxy;
  let node: ClusterNode;

  before(async () => {
    deployment = await Deployment.create();
    let databaseUrl: string;
    ({ proxy, databaseUrl } = await deployment.databaseBehindProxy());
    node = await deployment.start('pg-outage', { DATABASE_URL: databaseUrl });
    await deployment.settled();
  });
  after(async () => {
    await deployment?.destroy();
    await proxy?.close();
  });

  it('refuses while away, answers a turn as soon as it is back, and is ready again within about a second', async () => {
    const actor = 'pg-outage-1';
    assert.deepEqual(await increment(node, actor), { ok: true, what: 'answered' });
    assert.equal((await readyz(node)).status, 200);

    proxy.cut();
    const cutAt = Date.now();
    const during = await eventually(() => readyz(node), (r) => r.status === 503, 5_000);
    assert.equal(during.status, 503);
    assert.match(String(during.body.message), /lock/, 'the lock went with its connection');
    assert.equal((await increment(node, actor)).ok, false, 'no turn commits while the database is away');
    await sleep(OUTAGE_MS - (Date.now() - cutAt));

    proxy.restore();
    const backAt = Date.now();
    const answered = await eventually(() => increment(node, actor), (r) => r.ok, 10_000);
    const answeredMs = Date.now() - backAt;
    assert.equal(answered.ok, true, `the turn was answered again: ${answered.what}`);
    assert.ok(answeredMs < 2_000, `a turn was answered again ${answeredMs} ms after the database was back`);

    const ready = await eventually(() => readyz(node), (r) => r.status === 200, 10_000);
    const readyMs = Date.now() - backAt;
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.ok(readyMs < 2_500, `the node was ready again ${readyMs} ms after the database was back`);

    // Every turn committed once: the one before, and one after (attempts refused while away wrote nothing).
    const rows = await deployment.query<{ turns: number }>('SELECT count(*)::int AS turns FROM probe_turns WHERE actor = $1', [actor]);
    assert.equal(rows[0]?.turns, 2);
  });
});
