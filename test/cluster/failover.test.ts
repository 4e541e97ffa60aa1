import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { presenceConnectionName } from '../../src/actors/cluster/presence';
import { shardOf } from '../../src/actors/cluster/shards';
import { clusterTiming } from '../../src/actors/cluster/timing';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { REDIS_URL, TEST_ENV } from '../support/env';

/**
 * Death detected by the presence connection (docs/cluster.md, "Presence"): a killed node's shards move
 * a grace after its connection closes, whatever its lease TTL; a busy node is never suspected; a node
 * whose connection is cut while it lives stops acting before anyone takes its shards.
 *
 * The node under test runs with a 20 s lease TTL among nodes with the test timings, so every takeover
 * below that comes in seconds came from the presence connection, not from a lease lapsing.
 */
const LONG_LEASE_MS = 20_000;
const timing = clusterTiming(Number(TEST_ENV.CLUSTER_HEARTBEAT_MS), LONG_LEASE_MS);
/** Seen gone within a check, taken at the grace's end, answered after a router back-off: with room for a loaded machine. */
const FAILOVER_LIMIT_MS = timing.goneGraceMs + 3_000;

describe('failover by presence (real web processes, one with a 20 s lease)', function () {
  this.timeout(120_000);
  let deployment: Deployment;
  let redis: Redis;

  before(async () => {
    deployment = await Deployment.create();
    await Promise.all([deployment.start(), deployment.start()]);
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    await redis?.quit();
    await deployment?.destroy();
  });

  async function longLeaseNode(): Promise<ClusterNode> {
    const node = await deployment.start(`long-${deployment.nodes.length + 1}`, { CLUSTER_LEASE_TTL_MS: String(LONG_LEASE_MS) });
    await deployment.settled(30_000);
    return node;
  }

  async function actorServedBy(node: ClusterNode, prefix: string): Promise<string> {
    const owned = new Set((await node.state()).owned);
    for (let i = 0; ; i++) if (owned.has(shardOf('probe', `${prefix}-${i}`))) return `${prefix}-${i}`;
  }

  /** Pings through the test client until a node other than `not` answers; returns that answer and when. */
  async function answeredElsewhere(id: string, not: string, since: number): Promise<{ node: string; epoch: number; afterMs: number }> {
    const actors = await deployment.actors();
    for (;;) {
      try {
        const reply = await actors.ask('probe', id, { type: 'ping' }, { timeoutMs: 500 });
        if (reply.node !== not) return { node: reply.node, epoch: reply.epoch, afterMs: Date.now() - since };
      } catch {
        // no owner yet
      }
      if (Date.now() - since > 30_000) throw new Error(`${id} was not answered by another node within 30 s`);
    }
  }

  it('keeps a busy node (event loop blocked for 5 heartbeats) a member with its shards and actors', async () => {
    const busy = await longLeaseNode();
    const { member } = await busy.state();
    const actors = await deployment.actors();
    const id = await actorServedBy(busy, 'busy');
    const before = await actors.ask('probe', id, { type: 'ping' });
    assert.equal(before.node, member);

    const blockMs = 5 * Number(TEST_ENV.CLUSTER_HEARTBEAT_MS);
    const { blocked, done } = busy.block(blockMs);
    await blocked;
    await done;
    const after = await actors.ask('probe', id, { type: 'ping' });
    assert.deepEqual(after, before, 'the same activation on the same node under the same epoch answers');
    assert.equal(await redis.get(`${deployment.redisPrefix}lease:${shardOf('probe', id)}`), member, 'nobody took its lease');
    assert.deepEqual(busy.logs((e) => e.msg === "lost cluster membership: stopping this node's actors"), [], 'never removed from the cluster');
    assert.deepEqual(busy.logs((e) => e.msg === 'stopped serving shards'), [], 'never dropped a shard');
    await busy.kill('SIGTERM');
    await deployment.settled(30_000);
  });

  it('a node whose presence connection is killed while it is blocked stops acting before a survivor takes its shards', async () => {
    const node = await longLeaseNode();
    const { member } = await node.state();
    const actors = await deployment.actors();
    const id = await actorServedBy(node, 'cut');
    const first = await actors.ask('probe', id, { type: 'increment' });
    assert.equal(first.node, member);

    // Blocked, the node cannot notice its connection closing; the survivors can, and take its shards.
    // The ping is asked on the node the moment it wakes, before it can have seen its connection close.
    const { blocked, done } = node.block(FAILOVER_LIMIT_MS + 3_000, { kind: 'probe', id, message: { type: 'ping' } });
    await blocked;
    let unblocked = false;
    void done.then(() => (unblocked = true));
    const line = ((await redis.call('CLIENT', 'LIST')) as string).split('\n').find((l: string) => l.includes(` name=${presenceConnectionName(deployment.redisPrefix, member)} `));
    assert.ok(line, 'the node named its presence connection');
    const cutAt = Date.now();
    await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!);

    const successor = await answeredElsewhere(id, member, cutAt);
    assert.equal(unblocked, false, 'the survivor answered while the cut node was still blocked');
    assert.ok(successor.afterMs <= FAILOVER_LIMIT_MS, `taken over ${successor.afterMs} ms after the cut`);
    assert.ok(successor.epoch > first.epoch);

    const woken = await done;
    assert.ok(woken && 'value' in woken, `the cut node's own ask failed: ${JSON.stringify(woken)}`);
    assert.equal((woken.value as { node: string }).node, successor.node, 'once awake, the cut node routed its ask to the successor instead of serving it');
    const second = await actors.ask('probe', id, { type: 'increment' });
    assert.deepEqual([second.node, second.turn], [successor.node, 2]);
    const turns = await deployment.query<{ node: string; epoch: number }>("SELECT node, epoch FROM probe_turns WHERE actor = $1 ORDER BY turn", [id]);
    assert.deepEqual(turns, [{ node: member, epoch: first.epoch }, { node: successor.node, epoch: second.epoch }]);
    await node.process.waitForLog((e) => e.msg === 'presence connection to Redis closed', 10_000);
    await deployment.settled(30_000);
    assert.ok((await node.state()).owned.length > 0, 'it rejoined with a new presence and serves shards again');
    await node.kill('SIGTERM');
    await deployment.settled(30_000);
  });

  it('fails over within the grace, not the 20 s lease, when an owner is killed (kill -9)', async () => {
    const victim = await longLeaseNode();
    const { member } = await victim.state();
    const actors = await deployment.actors();
    const id = await actorServedBy(victim, 'killed');
    const before = await actors.ask('probe', id, { type: 'increment' });
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    const successor = await answeredElsewhere(id, member, killedAt);
    assert.ok(successor.afterMs <= FAILOVER_LIMIT_MS, `answered again ${successor.afterMs} ms after the kill`);
    const after = await actors.ask('probe', id, { type: 'increment' });
    assert.deepEqual([after.turn, after.node], [2, successor.node]);
    assert.ok(after.epoch > before.epoch);
    process.stdout.write(`      kill -9 -> answered again by a survivor: ${successor.afterMs} ms (grace ${timing.goneGraceMs} ms, lease TTL ${LONG_LEASE_MS} ms)\n`);
  });
});
