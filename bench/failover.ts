import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { shardOf } from '../src/actors/cluster/shards';
import { clusterTiming } from '../src/actors/cluster/timing';
import { defer, scoped } from './support/cleanup';
import { benchSystem, type BenchSystem } from './support/context';
import { BenchNode, settled } from './support/processes';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { round, summarize } from './support/stats';

/** Production timings (config/env.ts defaults), written out so a developer's shell cannot change them. */
const HEARTBEAT_MS = 2_000;
const LEASE_TTL_MS = 12_000;
/** Issue 23: p99 <= 5 s after kill -9, where waiting out the lease took up to TTL + a tick. */
const GOAL_MS = 5_000;
const TIMING = clusterTiming(HEARTBEAT_MS, LEASE_TTL_MS);
const NODES = 3;
/** Short per-attempt deadlines: the first ask after recovery is seen within ~one router back-off (<= 250 ms). */
const ATTEMPT_TIMEOUT_MS = 500;
const GIVE_UP_MS = 60_000;
const POLL_MS = 25;

interface Round {
  /** kill -9 of the owner until the observer's ask is answered again. */
  recoveredMs: number;
  /** ...until the dead member left the members set (pruned by a survivor's heartbeat). */
  detectedMs: number;
  /** ...until its lease key for the actor's shard stopped naming it (taken over, or expired). */
  leaseExpiredMs: number;
  /** ...until a survivor held that lease. */
  reacquiredMs: number;
  /** Replacement node spawned until all shards are served exactly once again. */
  rebalanceMs: number;
}

/**
 * Watches the cluster's view of the crash from Redis, independently of the ask loop: when the dead
 * member is pruned, when its lease lapses, when a survivor takes it.
 */
function watchRedis(redis: Redis, prefix: string, member: string, shard: number, t0: number) {
  const seen = { detectedMs: Number.NaN, leaseExpiredMs: Number.NaN, reacquiredMs: Number.NaN };
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const [score, holder] = await Promise.all([redis.zscore(`${prefix}members`, member), redis.get(`${prefix}lease:${shard}`)]);
      const at = performance.now() - t0;
      if (score === null && Number.isNaN(seen.detectedMs)) seen.detectedMs = at;
      if (holder !== member && Number.isNaN(seen.leaseExpiredMs)) seen.leaseExpiredMs = at;
      if (holder !== null && holder !== member && Number.isNaN(seen.reacquiredMs)) seen.reacquiredMs = at;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })();
  return {
    seen,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function owner(nodes: BenchNode[], shard: number): Promise<{ node: BenchNode; member: string }> {
  for (const node of nodes.filter((n) => n.alive)) {
    const state = await node.state();
    if (state.owned.includes(shard)) return { node, member: state.member };
  }
  throw new Error(`no live node serves shard ${shard}`);
}

async function oneRound(round: number, nodes: BenchNode[], client: BenchSystem, redis: Redis, prefix: string, env: Record<string, string>): Promise<Round> {
  const id = `failover-${round}-${randomBytes(3).toString('hex')}`;
  const shard = shardOf('probe', id);
  // The actor is live on its owner before the crash, as a conversation in progress would be.
  const before = await client.actors.ask('probe', id, { type: 'ping' }, { timeoutMs: 10_000 });
  const victim = await owner(nodes, shard);
  if (victim.member !== before.node) throw new Error(`/state says ${victim.member} owns shard ${shard}, but ${before.node} answered`);

  const t0 = performance.now();
  const watch = watchRedis(redis, prefix, victim.member, shard, t0);
  await victim.node.crash();
  let recoveredMs = Number.POSITIVE_INFINITY;
  while (performance.now() - t0 < GIVE_UP_MS) {
    try {
      const after = await client.actors.ask('probe', id, { type: 'ping' }, { timeoutMs: ATTEMPT_TIMEOUT_MS });
      if (after.node === victim.member) throw new Error('the dead owner answered');
      recoveredMs = performance.now() - t0;
      break;
    } catch {
      // actor_unavailable / owner_lost / turn_timeout while the shard has no live owner: ask again.
    }
  }
  await watch.stop();

  const replaced = performance.now();
  nodes.push(await BenchNode.start(`n${nodes.length + 1}`, env));
  await settled(nodes, 120_000);
  return { recoveredMs, ...watch.seen, rebalanceMs: performance.now() - replaced };
}

export async function failover(options: { rounds: number; log: (line: string) => void }): Promise<BenchResult> {
  const startedAt = new Date();
  return scoped(async () => {
    const databaseUrl = await benchDatabase('failover');
    const prefix = benchRedisPrefix('failover');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, APP_KEY, CLUSTER_HEARTBEAT_MS: String(HEARTBEAT_MS), CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS) };
    const nodes = await Promise.all(Array.from({ length: NODES }, (_, i) => BenchNode.start(`n${i + 1}`, env)));
    const client = await benchSystem(env, [], { observer: true });
    defer('close the observer', () => client.close());
    const redis = new Redis(REDIS_URL);
    defer('close the watcher connection', () => redis.quit());
    await settled(nodes, 120_000);

    const rounds: Round[] = [];
    for (let r = 1; r <= options.rounds; r++) {
      const result = await oneRound(r, nodes, client, redis, prefix, env);
      rounds.push(result);
      const s = (v: number) => (v / 1000).toFixed(2);
      options.log(
        `round ${r}/${options.rounds}: recovered ${s(result.recoveredMs)} s (dead member pruned ${s(result.detectedMs)} s, lease left it ${s(result.leaseExpiredMs)} s, re-acquired ${s(result.reacquiredMs)} s); rebalanced in ${s(result.rebalanceMs)} s`,
      );
    }
    const recovered = summarize(rounds.map((r) => r.recoveredMs));
    const seconds = (v: number) => round(v / 1000, 2);
    const p50 = (pick: (r: Round) => number) => seconds(summarize(rounds.map(pick)).p50);
    return {
      name: 'failover',
      title: `failover after kill -9 of an actor's owner (${NODES} web nodes, production timings)`,
      goal: `p99 <= ${GOAL_MS / 1000} s`,
      pass: recovered.p99 <= GOAL_MS,
      figures: {
        recovered_p50_s: seconds(recovered.p50),
        recovered_p99_s: seconds(recovered.p99),
        recovered_max_s: seconds(recovered.max),
        recovered_min_s: seconds(recovered.min),
        recovered_mean_s: seconds(recovered.mean),
        member_pruned_p50_s: p50((r) => r.detectedMs),
        lease_left_dead_member_p50_s: p50((r) => r.leaseExpiredMs),
        lease_reacquired_p50_s: p50((r) => r.reacquiredMs),
        rebalance_p50_s: p50((r) => r.rebalanceMs),
        rebalance_max_s: seconds(summarize(rounds.map((r) => r.rebalanceMs)).max),
      },
      // No runtime-free way to fail over exists; the baseline is waiting out the lease, as before presence.
      baseline: { lease_ttl_s: LEASE_TTL_MS / 1000, gone_grace_s: TIMING.goneGraceMs / 1000 },
      settings: {
        rounds: options.rounds,
        nodes: NODES,
        heartbeat_ms: HEARTBEAT_MS,
        lease_ttl_ms: LEASE_TTL_MS,
        gone_grace_ms: TIMING.goneGraceMs,
        check_ms: TIMING.checkMs,
        attempt_timeout_ms: ATTEMPT_TIMEOUT_MS,
      },
      notes: [
        'each round: ping a new probe actor, find its owner (shardOf + GET /state), kill -9 it, re-ask every <= 500 ms until answered, then start a replacement node and wait until all 1024 shards are served once',
        `the floor: the dead node's presence connection closes with the process; a survivor sees it gone within a membership check (<= ${TIMING.checkMs} ms), takes its leases when the grace (${TIMING.goneGraceMs} ms, on Redis's clock) has passed, and the router's back-off (<= 250 ms) finds the new owner; the lease TTL no longer counts`,
        ...(options.rounds < 20 ? [`only ${options.rounds} rounds: p99 is the worst of few samples; the documented run uses 20`] : []),
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
