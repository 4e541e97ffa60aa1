/**
 * Every cluster interval, derived from two knobs (CLUSTER_HEARTBEAT_MS, CLUSTER_LEASE_TTL_MS) so
 * their safety relations always hold: a node stops serving a shard (TTL - margin after its last
 * renewal was sent) before Redis can expire the lease and hand it to another node, and stops acting
 * (grace - margin after its last answered presence ping was sent) before the others may take the
 * shards of a member whose presence connection they saw gone. Each member declares its own dead-after
 * and grace in Redis, so nodes with different timings can share one cluster.
 */
export interface ClusterTiming {
  heartbeatMs: number;
  /**
   * A member that has not beaten for this long, while its presence connection is still open (frozen,
   * or busy for that long), is dead to the others: the lease TTL, so that a busy node is never
   * suspected while its leases could still be valid. A killed node is found gone at once instead.
   */
  deadAfterMs: number;
  /** How often membership looks for members whose presence connection is gone. */
  checkMs: number;
  /** The others take a gone member's leases this long after first seeing its presence connection gone. */
  goneGraceMs: number;
  /** How often a node pings on its presence connection; each answer vouches for it for grace - margin. */
  presencePingMs: number;
  presenceMarginMs: number;
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
  const goneGraceMs = Math.max(1_000, heartbeatMs);
  return {
    heartbeatMs,
    deadAfterMs: Math.max(3 * heartbeatMs, leaseTtlMs),
    checkMs: Math.round(goneGraceMs / 4),
    goneGraceMs,
    presencePingMs: Math.round(goneGraceMs / 4),
    presenceMarginMs: Math.round(goneGraceMs / 4),
    joinWindowMs: Math.round(1.5 * heartbeatMs),
    leaseTtlMs,
    renewMs: Math.round(leaseTtlMs / 3),
    safetyMarginMs: Math.round(leaseTtlMs / 6),
    tickMs: Math.min(1_000, Math.round(heartbeatMs / 2)),
    releasePerTick: 128,
    shortfallGraceMs: 2 * leaseTtlMs,
  };
}
