/**
 * Every cluster interval, derived from two knobs (CLUSTER_HEARTBEAT_MS, CLUSTER_LEASE_TTL_MS) so
 * their safety relations always hold: a node stops serving a shard (TTL - margin after its last
 * renewal was sent) before Redis can expire the lease and hand it to another node.
 */
export interface ClusterTiming {
  heartbeatMs: number;
  /** A member whose last heartbeat is older than this is dead to the others (3 missed beats). */
  deadAfterMs: number;
  /** How long a new member waits before taking shards, so nodes starting together see each other. */
  joinWindowMs: number;
  leaseTtlMs: number;
  renewMs: number;
  safetyMarginMs: number;
  /** How often placement is reconsidered (acquire what is ours, hand back what is not). */
  tickMs: number;
  /** Shards a node hands back per tick when others join, so a join moves load gradually. */
  releasePerTick: number;
  /**
   * How long a node may serve fewer shards than placement gives it before /readyz says so. On every
   * join, leave and failover shards wait for a dead owner's lease to lapse (up to a TTL) or for a
   * handoff's running turns to finish; a shortfall that outlasts two TTLs is a node that lost its
   * shards and cannot take them back.
   */
  shortfallGraceMs: number;
}

export function clusterTiming(heartbeatMs = 2_000, leaseTtlMs = 12_000): ClusterTiming {
  return {
    heartbeatMs,
    deadAfterMs: 3 * heartbeatMs,
    joinWindowMs: Math.round(1.5 * heartbeatMs),
    leaseTtlMs,
    renewMs: Math.round(leaseTtlMs / 3),
    safetyMarginMs: Math.round(leaseTtlMs / 6),
    tickMs: Math.min(1_000, Math.round(heartbeatMs / 2)),
    releasePerTick: 128,
    shortfallGraceMs: 2 * leaseTtlMs,
  };
}
