import { clusterTiming, type ClusterTiming } from '../../src/actors/cluster/timing';

export type TimingsName = 'test' | 'production';

/** The two cluster knobs per timing set: production = config/env.ts defaults, test = TEST_ENV's. */
const TIMINGS: Record<TimingsName, { heartbeatMs: number; leaseTtlMs: number }> = {
  test: { heartbeatMs: 500, leaseTtlMs: 3_000 },
  production: { heartbeatMs: 2_000, leaseTtlMs: 12_000 },
};

export interface Settings {
  timings: TimingsName;
  timing: ClusterTiming;
  webNodes: number;
  /** Widget visitors talking to the AI, each one conversation, one message at a time. */
  botVisitors: number;
  /** Widget visitors who ask for a person first; agents reply in their conversations. */
  handoffVisitors: number;
  agents: number;
  /** Conversations the probe replies in (as an agent), to time when each fault's shards answer again. */
  probeConversations: number;
  /** Load before the first fault, and after the last one. */
  warmupMs: number;
  cooldownMs: number;
  /** A fault window ends once no request has failed for this long (and the cluster is settled). */
  quietMs: number;
  /** Longest a fault window may take to become quiet before the run moves on (and reports it). */
  windowLimitMs: number;
  /** SIGSTOP lasts this long: past the lease TTL, so others take the node's shards. */
  pauseMs: number;
  /**
   * Redis stays down this long: every node loses its membership at once (its presence connection
   * closes with Redis), and 5 heartbeats keeps the outage as long as before presence, when 3 missed
   * beats were the dead-member bound.
   */
  redisDownMs: number;
  /** The fake provider's pause between two deltas (an answer is ~8 deltas). */
  deltaDelayMs: number;
  /** A message (or agent reply) still failing after this long is given up and reported. */
  giveUpMs: number;
}

export function settingsFor(timings: TimingsName): Settings {
  const { heartbeatMs, leaseTtlMs } = TIMINGS[timings];
  const timing = clusterTiming(heartbeatMs, leaseTtlMs);
  return {
    timings,
    timing,
    webNodes: 3,
    botVisitors: 24,
    handoffVisitors: 6,
    agents: 3,
    probeConversations: 24,
    warmupMs: 10_000,
    cooldownMs: 8_000,
    quietMs: Math.max(3_000, 2 * heartbeatMs),
    windowLimitMs: 60_000 + 2 * leaseTtlMs,
    pauseMs: leaseTtlMs + 4 * heartbeatMs,
    redisDownMs: 5 * heartbeatMs,
    deltaDelayMs: 60,
    giveUpMs: 90_000,
  };
}

/** The environment every web node and the worker get for these timings. */
export function clusterEnv(settings: Settings): Record<string, string> {
  return { CLUSTER_HEARTBEAT_MS: String(settings.timing.heartbeatMs), CLUSTER_LEASE_TTL_MS: String(settings.timing.leaseTtlMs) };
}
