import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { SHARD_COUNT, shardOf } from '../../src/actors/cluster/shards';
import { AppError } from '../../src/errors';
import { Deployment, LEASE_TTL_MS } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { REDIS_URL } from '../support/env';
import { TcpProxy } from '../support/tcpProxy';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks until the actor answers, returning how long that took after `since`. */
async function answersAgain(ask: () => Promise<unknown>, since: number, giveUpMs: number): Promise<number> {
  for (;;) {
    try {
      await ask();
      return Date.now() - since;
    } catch (error) {
      if (Date.now() - since > giveUpMs) throw error;
      await sleep(50);
    }
  }
}

describe('actor cluster (several real web processes)', function () {
  this.timeout(120_000);
  let deployment: Deployment;

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start(), deployment.start(), deployment.start()]);
    await deployment.settled();
  });
  after(() => deployment?.destroy());

  /** An actor id whose shard this node serves now. */
  async function actorServedBy(node: ClusterNode): Promise<string> {
    const owned = new Set((await node.state()).owned);
    for (let i = 0; ; i++) if (owned.has(shardOf('probe', `served-${i}`))) return `served-${i}`;
  }

  /** Keeps three live nodes between tests that kill some. */
  async function threeNodes(): Promise<void> {
    while (deployment.live().length < 3) await deployment.start();
    await deployment.settled(20_000);
  }

  it('spreads the 1024 shards over the live nodes, each served once and leased to its server', async () => {
    const states = await Promise.all(deployment.live().map((node) => node.state()));
    assert.ok(states.every((s) => s.owned.length > 150), `uneven spread: ${states.map((s) => s.owned.length).join('/')}`);
    const redis = new Redis(REDIS_URL);
    try {
      const holders = await redis.mget(Array.from({ length: SHARD_COUNT }, (_, shard) => `${deployment.redisPrefix}lease:${shard}`));
      for (const state of states) for (const shard of state.owned) assert.equal(holders[shard], state.member, `lease of shard ${shard}`);
    } finally {
      await redis.quit();
    }
  });

  it('routes asks to owners on other nodes and runs a retried ask once per idempotency key', async () => {
    const actors = await deployment.actors();
    const replies = await Promise.all(Array.from({ length: 24 }, (_, i) => actors.ask('probe', `route-${i}`, { type: 'increment' })));
    assert.ok(new Set(replies.map((r) => r.node)).size === 3, 'asks reached all three nodes');
    const owner = await deployment.ownerOf('probe', 'route-0');
    assert.equal(replies[0]!.node, (await owner.state()).member);

    const other = deployment.live().find((node) => node !== owner)!;
    const options = { idempotencyKey: 'retry-1' };
    const [first, viaClient, viaOtherNode] = await Promise.all([
      actors.ask('probe', 'route-0', { type: 'increment', holdMs: 100 }, options),
      actors.ask('probe', 'route-0', { type: 'increment' }, options),
      other.ask('probe', 'route-0', { type: 'increment' }, options),
    ]);
    assert.deepEqual(viaClient, first);
    assert.deepEqual(viaOtherNode, { value: first });
    const rows = await deployment.query<{ turns: number }>("SELECT count(*)::int AS turns FROM probe_turns WHERE actor = 'route-0'");
    assert.equal(rows[0]!.turns, 2, 'the retried ask ran one turn');
  });

  it('relays a stream\'s chunks in order from the owner to the caller\'s node', async () => {
    const actors = await deployment.actors();
    const stream = actors.stream('probe', 'stream-1', { type: 'stream', chunks: 60, gapMs: 0 });
    const seqs: number[] = [];
    for await (const { seq, chunk } of stream) {
      assert.equal(chunk, `chunk ${seq}`);
      seqs.push(seq);
    }
    assert.deepEqual(seqs, Array.from({ length: 60 }, (_, i) => i + 1));
    assert.equal((await stream.reply).sent, 60);
  });

  it('ends a stream with an error, within the lease TTL, when its owner is killed mid-stream', async () => {
    const actors = await deployment.actors();
    const owner = await deployment.ownerOf('probe', 'stream-2');
    const stream = actors.stream('probe', 'stream-2', { type: 'stream', chunks: 400, gapMs: 50 }, { timeoutMs: 60_000 });
    let killedAt = 0;
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const { seq } of stream) {
          seen.push(seq);
          if (seq === 5) {
            killedAt = Date.now();
            void owner.kill('SIGKILL');
          }
        }
      })(),
      (error: unknown) => error instanceof AppError && error.code === 'owner_lost',
    );
    const endedAfter = Date.now() - killedAt;
    assert.ok(endedAfter < LEASE_TTL_MS, `stream ended ${endedAfter} ms after the kill`);
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i + 1), 'chunks before the error were in order');
    await threeNodes();
  });

  it(`fails over within TTL + 3 s when an owner is killed (kill -9)`, async () => {
    const actors = await deployment.actors();
    const victim = await deployment.ownerOf('probe', 'failover-1');
    const before = await actors.ask('probe', 'failover-1', { type: 'increment' });
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    const took = await answersAgain(() => actors.ask('probe', 'failover-1', { type: 'ping' }, { timeoutMs: 1_000 }), killedAt, 30_000);
    assert.ok(took <= LEASE_TTL_MS + 3_000, `answered again after ${took} ms`);
    const after = await actors.ask('probe', 'failover-1', { type: 'increment' });
    assert.notEqual(after.node, before.node);
    assert.ok(after.epoch > before.epoch);
    assert.equal(after.turn, 2, 'state reloaded from Postgres on the survivor');
    await threeNodes();
  });

  it('hands shards over on SIGTERM with no TTL-long gap (rolling restart)', async () => {
    const actors = await deployment.actors();
    const leaving = await deployment.ownerOf('probe', 'rolling-1');
    await actors.ask('probe', 'rolling-1', { type: 'increment' });
    const stoppedAt = Date.now();
    const stopped = leaving.kill('SIGTERM');
    const took = await answersAgain(() => actors.ask('probe', 'rolling-1', { type: 'increment' }, { timeoutMs: 5_000 }), stoppedAt, 30_000);
    await stopped;
    assert.ok(took < LEASE_TTL_MS, `gap of ${took} ms`);
    assert.ok(leaving.logs((e) => e.msg === 'stopped').length === 1, 'the node drained and exited cleanly');
    await threeNodes();
  });

  it('fences a paused owner: after SIGCONT its write is refused, it deactivates, and no stale write lands', async () => {
    const actors = await deployment.actors();
    const paused = await deployment.ownerOf('probe', 'fence-1');
    const first = await actors.ask('probe', 'fence-1', { type: 'increment' });
    // The turn waits before its write; the owner is frozen meanwhile, past its lease.
    const inFlight = actors.ask('probe', 'fence-1', { type: 'increment', holdMs: 400 }, { timeoutMs: 30_000 }).catch((error: unknown) => error);
    await sleep(100);
    paused.process.child.kill('SIGSTOP');
    const takeover = await answersAgain(() => actors.ask('probe', 'fence-1', { type: 'ping' }, { timeoutMs: 1_000 }), Date.now(), 30_000);
    const successor = await actors.ask('probe', 'fence-1', { type: 'increment' });
    assert.notEqual(successor.node, first.node);
    const resumedAt = new Date();
    paused.process.child.kill('SIGCONT');
    const outcome = await inFlight;
    assert.ok(outcome instanceof AppError && outcome.status === 503, `the caller of the frozen turn got ${String(outcome)}`);
    await paused.process.waitForLog((e) => e.msg === 'fenced out: another node owns this shard now', 10_000);
    const stale = await deployment.query("SELECT * FROM probe_turns WHERE actor = 'fence-1' AND node = $1 AND ended_at >= $2", [first.node, resumedAt]);
    assert.deepEqual(stale, [], 'zero writes from the stale epoch');
    const turns = await deployment.query<{ turn: number; node: string }>("SELECT turn, node FROM probe_turns WHERE actor = 'fence-1' ORDER BY turn");
    assert.deepEqual(turns, [{ turn: 1, node: first.node }, { turn: 2, node: successor.node }]);
    assert.ok(takeover <= LEASE_TTL_MS + 3_000);
    await deployment.settled(20_000);
  });

  it('stops a node\'s actors when it loses Redis; the others take over; it rejoins when Redis is back', async () => {
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
    try {
      const isolated = await deployment.start('isolated', { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
      await deployment.settled(20_000);
      const actors = await deployment.actors();
      const id = await actorServedBy(isolated);
      const before = await actors.ask('probe', id, { type: 'increment' });
      assert.equal(before.node, (await isolated.state()).member);

      proxy.cut();
      await isolated.process.waitForLog((e) => e.msg === "lost cluster membership: stopping this node's actors", 10_000);
      assert.deepEqual(await isolated.state().then((s) => [s.owned.length, s.active]), [0, 0]);
      const after = await actors.ask('probe', id, { type: 'increment' }, { timeoutMs: LEASE_TTL_MS + 5_000 });
      assert.notEqual(after.node, before.node);
      assert.equal(after.turn, 2);

      proxy.restore();
      await deployment.settled(20_000);
      assert.ok((await isolated.state()).owned.length > 0, 'it serves shards again');
      await isolated.kill('SIGTERM');
    } finally {
      await proxy.close();
    }
    await deployment.settled(20_000);
  });

  it('never lets two nodes serve one actor while nodes go 3 -> 1 -> 3 (kill -9 and SIGTERM) under continuous asks', async () => {
    const actors = await deployment.actors();
    const ids = Array.from({ length: 24 }, (_, i) => `invariant-${i}`);
    const acked: Array<{ actor: string; turn: number; node: string; epoch: number }> = [];
    let failed = 0;
    let running = true;
    const worker = async (offset: number) => {
      for (let i = offset; running; i++) {
        const actor = ids[i % ids.length]!;
        try {
          acked.push({ actor, ...(await actors.ask('probe', actor, { type: 'increment' }, { timeoutMs: 6_000 })) });
        } catch {
          failed++;
        }
      }
    };
    const workers = [0, 7, 13, 19].map(worker);
    await sleep(1_000);
    const [a, b, c] = deployment.live();
    await Promise.all([b!.kill('SIGKILL'), c!.kill('SIGTERM')]);
    await sleep(LEASE_TTL_MS + 1_000); // one node serves everything
    await Promise.all([deployment.start(), deployment.start()]);
    await sleep(2_000);
    await a!.kill('SIGKILL');
    await deployment.start();
    await deployment.settled(20_000);
    await sleep(1_000);
    running = false;
    await Promise.all(workers);

    const rows = await deployment.query<{ actor: string; turn: number; node: string; epoch: number; started_at: Date; ended_at: Date }>(
      "SELECT * FROM probe_turns WHERE actor LIKE 'invariant-%' ORDER BY actor, turn",
    );
    assert.ok(acked.length > 100, `only ${acked.length} asks were acknowledged`);
    const byKey = new Map(rows.map((row) => [`${row.actor}#${row.turn}`, row]));
    for (const ack of acked) {
      const row = byKey.get(`${ack.actor}#${ack.turn}`);
      assert.ok(row && row.node === ack.node && row.epoch === ack.epoch, `acknowledged ${JSON.stringify(ack)} is in the database as answered`);
    }
    for (const actor of ids) {
      const turns = rows.filter((row) => row.actor === actor);
      const owners = new Map<number, string>();
      turns.forEach((row, i) => {
        assert.equal(row.turn, i + 1, `${actor}: turns are contiguous`);
        assert.equal(owners.get(row.epoch) ?? row.node, row.node, `${actor}: epoch ${row.epoch} served by one node`);
        owners.set(row.epoch, row.node);
        const previous = turns[i - 1];
        if (!previous) return;
        assert.ok(row.epoch >= previous.epoch, `${actor}: epochs never go back`);
        assert.ok(row.started_at >= previous.ended_at, `${actor}: turn ${row.turn} (${row.node}) overlapped turn ${previous.turn} (${previous.node})`);
      });
    }
    process.stdout.write(`      invariant run: ${acked.length} acknowledged asks, ${failed} refused during failovers, ${rows.length} turns checked\n`);
  });
});
