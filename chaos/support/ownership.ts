import { Redis } from 'ioredis';
import { SHARD_COUNT } from '../../src/actors/cluster/shards';
import type { Cluster } from './cluster';

/** One look at who owns what: every node's /state and every lease key in Redis, taken together. */
export interface OwnershipSnapshot {
  at: number;
  /** Nodes that answered /state (a frozen one does not). */
  nodes: number;
  shardsServed: number;
  /** Shards two nodes both say they serve. */
  shardsServedTwice: number;
  /** Shards a node serves whose Redis lease names another member (or none). */
  shardsWithoutLease: number;
  activeConversations: number;
  /** Conversations active on two nodes that both serve the conversation's shard: two owners. */
  twoOwners: Array<{ id: string; nodes: string[] }>;
  /** Conversations active on a node that does not hold the shard's lease. */
  notLeaseHolder: Array<{ id: string; node: string; holder: string | null }>;
  /** Active on a node that no longer serves the shard (a copy that missed its deactivation). */
  staleCopies: Array<{ id: string; node: string }>;
  /** Per node: actors (all kinds) the tracker holds, and the host's own count. More tracked than hosted
   *  means activations that completed after the host had closed them: they never got a deactivate call. */
  activations: Record<string, { tracked: number; host: number }>;
}

export async function ownershipSnapshot(cluster: Cluster, redisUrl: string, prefix: string): Promise<OwnershipSnapshot> {
  const states = await cluster.states();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  let holders: Array<string | null>;
  try {
    holders = await redis.mget(Array.from({ length: SHARD_COUNT }, (_, shard) => `${prefix}lease:${shard}`));
  } finally {
    redis.disconnect();
  }
  const servedBy = new Map<number, string[]>();
  let shardsWithoutLease = 0;
  for (const { state } of states) {
    for (const shard of state.owned) {
      servedBy.set(shard, [...(servedBy.get(shard) ?? []), state.member]);
      if (holders[shard] !== state.member) shardsWithoutLease++;
    }
  }
  const owners = new Map<string, string[]>();
  const notLeaseHolder: OwnershipSnapshot['notLeaseHolder'] = [];
  const staleCopies: OwnershipSnapshot['staleCopies'] = [];
  for (const { node, state } of states) {
    const owned = new Set(state.owned);
    for (const actor of state.active) {
      if (!owned.has(actor.shard)) {
        staleCopies.push({ id: actor.id, node: node.name });
        continue;
      }
      owners.set(actor.id, [...(owners.get(actor.id) ?? []), node.name]);
      const holder = holders[actor.shard] ?? null;
      if (holder !== state.member) notLeaseHolder.push({ id: actor.id, node: node.name, holder });
    }
  }
  return {
    at: Date.now(),
    nodes: states.length,
    shardsServed: servedBy.size,
    shardsServedTwice: [...servedBy.values()].filter((members) => members.length > 1).length,
    shardsWithoutLease,
    activeConversations: owners.size,
    twoOwners: [...owners].filter(([, nodes]) => nodes.length > 1).map(([id, nodes]) => ({ id, nodes })),
    notLeaseHolder,
    staleCopies,
    activations: Object.fromEntries(states.map(({ node, state }) => [node.name, { tracked: state.tracked, host: state.hostActivations }])),
  };
}

/** Nothing wrong: one owner per active conversation, each the lease holder, every shard served once. */
export function ownershipClean(s: OwnershipSnapshot): boolean {
  return s.shardsServed === SHARD_COUNT && s.shardsServedTwice === 0 && s.shardsWithoutLease === 0 && s.twoOwners.length === 0 && s.notLeaseHolder.length === 0 && s.staleCopies.length === 0;
}

/** How long a sample may take for its answers to count as one instant: a shard moves in no less than TTL/6. */
const CONCLUSIVE_MS = 250;

export interface OwnershipSamples {
  samples: number;
  /** Samples whose node answers all came within CONCLUSIVE_MS, so two owners in them would be real. */
  conclusive: number;
  /** Conversations seen active on two nodes that both served its shard, in conclusive samples. */
  twoOwners: string[];
  /** The same in slower samples, where a shard may have moved between two answers (reported, not failed). */
  twoOwnersInconclusive: number;
}

/**
 * Looks at every node's active conversations once a second for the whole load, faults included (a
 * frozen node does not answer and is left out), for a conversation active on two nodes at once.
 */
export function sampleOwnership(cluster: Cluster, everyMs = 1_000): { stop(): Promise<OwnershipSamples> } {
  const result: OwnershipSamples = { samples: 0, conclusive: 0, twoOwners: [], twoOwnersInconclusive: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      const states = await cluster.states();
      const conclusive = Date.now() - started <= CONCLUSIVE_MS;
      result.samples++;
      if (conclusive) result.conclusive++;
      const owners = new Map<string, number>();
      for (const { state } of states) {
        const owned = new Set(state.owned);
        for (const actor of state.active) if (owned.has(actor.shard)) owners.set(actor.id, (owners.get(actor.id) ?? 0) + 1);
      }
      for (const [id, count] of owners) {
        if (count < 2) continue;
        if (conclusive) result.twoOwners.push(id);
        else result.twoOwnersInconclusive++;
      }
      await new Promise((wake) => setTimeout(wake, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return result;
    },
  };
}
