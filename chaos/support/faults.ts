import { shardOf } from '../../src/actors/cluster/shards';
import type { Balancer } from './balancer';
import type { Cluster, WebNode } from './cluster';
import type { Journal } from './journal';
import { newReply, replyAttempt, type LoadContext } from './load';
import { ownershipClean, ownershipSnapshot, type OwnershipSnapshot } from './ownership';
import { sleep } from './ports';
import type { PrivatePostgres } from './postgres';
import type { Supervised } from './process';
import type { PrivateRedis } from './redis';
import type { Settings } from './settings';

export type FaultKind = 'kill' | 'redis' | 'postgres' | 'pause';

export const FAULTS: Array<{ kind: FaultKind; title: string }> = [
  { kind: 'kill', title: 'kill -9 of a web node, then restart it' },
  { kind: 'redis', title: 'Redis killed, down past the dead-member bound, restarted empty' },
  { kind: 'postgres', title: 'Postgres restarted (fast shutdown, start)' },
  { kind: 'pause', title: 'a web node frozen (SIGSTOP) past its lease, then SIGCONT' },
];

/** A process (re)started while Redis was down: it must wait for Redis and come up once it is back, not exit. */
export interface StartedWhileDown {
  process: string;
  startedAt: number;
  /** When it said it was ready (undefined: never, within the supervisor's 60 s). */
  readyAt: number | undefined;
  /** Why it did not come up: it exited, or took too long. */
  failure: string | undefined;
}

export interface ProbeResult {
  conversationId: string;
  /** When the first reply sent after the fault was answered 200 (undefined: never, within the give-up time). */
  answeredAt: number | undefined;
}

/** What happened in one fault's window. Times are Date.now() milliseconds. */
export interface FaultWindow {
  kind: FaultKind;
  title: string;
  victim: string | undefined;
  /** The fault was injected. */
  at: number;
  /** The fault was over: the dependency answered again, the frozen node was continued, the killed node was started again. */
  backAt: number;
  /** The window closed: the cluster settled and no request had failed for the quiet period. */
  endedAt: number;
  /** The load was quiet again before the killed node was restarted (kill only). */
  quietBeforeBackAt: number | undefined;
  probes: ProbeResult[];
  /** Redis only: the web node and the worker killed and started again while Redis was down. */
  startedWhileDown: StartedWhileDown[];
  /** Snapshot once the window closed (the second look when the first caught a shard mid-move). */
  ownership: OwnershipSnapshot;
  ownershipFirstLook: OwnershipSnapshot | undefined;
  notes: string[];
}

export interface FaultDeps {
  settings: Settings;
  cluster: Cluster;
  balancer: Balancer;
  journal: Journal;
  load: LoadContext;
  redis: PrivateRedis;
  postgres: PrivatePostgres;
  redisPrefix: string;
  probeConversations: string[];
  probeToken: string;
  log(line: string): void;
}

/**
 * The node hosting the most active conversations (the fault that hurts most) among those that serve
 * at least one probe conversation, so the fault is timed by the probe as well as by the load.
 */
async function victimOf(deps: FaultDeps): Promise<{ node: WebNode; targets: string[] }> {
  const states = await deps.cluster.states();
  const candidates = states
    .map(({ node, state }) => ({ node, active: state.active.length, targets: deps.probeConversations.filter((id) => state.owned.includes(shardOf('conversation', id))) }))
    .sort((a, b) => Number(b.targets.length > 0) - Number(a.targets.length > 0) || b.active - a.active);
  const chosen = candidates[0];
  if (!chosen) throw new Error('no web node answers /state');
  return chosen;
}

/**
 * After an attempt is refused (a 503 while Postgres or Redis is away, a refused connection), the
 * probe tries again this soon: the resolution of "answered again". It was 0.5 s, which put up to half
 * a second of the probe's own waiting into every recovery figure it measured.
 */
const PROBE_RETRY_MS = 100;
/**
 * An attempt still waiting after this long gets a second one beside it (a third after twice this), so a
 * stuck attempt does not hide a later success. A waiting attempt is not lost: the router retries it
 * until its shard is served, so it is answered as soon as the cluster can. Attempts added sooner only
 * add load exactly when the cluster recovers: the probe used to add one every 0.5 s whether or not
 * the others were still waiting, so after an outage it kept up to 72 replies in flight, three times
 * the conversations it times (and 240 with 10 at once, when a run at load 12 measured 6.4 s after
 * Postgres was back).
 */
const PROBE_STUCK_MS = 2_000;
/** An attempt is given up after this long (past the router's 10 s ask deadline), and at most this many wait at once. */
const PROBE_ATTEMPT_MS = 15_000;
const PROBE_IN_FLIGHT = 3;

/**
 * Replies (as an agent) in each target conversation from the fault on, through the balancer but never
 * via `avoid` (the probe times the cluster's failover, not the balancer's health check). One reply per
 * conversation, one client id: an attempt refused is tried again PROBE_RETRY_MS later; one still
 * waiting after PROBE_STUCK_MS gets another beside it (at most PROBE_IN_FLIGHT), without cutting it,
 * so a slow answer counts when it comes and a stuck one does not hide a later success. "Answered
 * again" is the first 200 of any attempt.
 */
function probe(deps: FaultDeps, targets: string[], avoid: WebNode | undefined): Promise<ProbeResult[]> {
  return Promise.all(
    targets.map(async (conversationId) => {
      const entry = newReply(deps.load, 'probe', 'probe', conversationId);
      const started = Date.now();
      const attempts = new Map<Promise<void>, number>();
      let answeredAt: number | undefined;
      let wake!: () => void;
      let woken = new Promise<void>((resolve) => (wake = resolve));
      while (answeredAt === undefined && Date.now() - started < deps.settings.giveUpMs) {
        const newest = Math.max(0, ...attempts.values());
        const due = attempts.size === 0 || (attempts.size < PROBE_IN_FLIGHT && Date.now() - newest >= PROBE_STUCK_MS);
        const node = due ? deps.balancer.pick(avoid) : undefined;
        if (node?.url) {
          const attempt: Promise<void> = replyAttempt(deps.load, entry, node, deps.probeToken, PROBE_ATTEMPT_MS).then((ok) => {
            attempts.delete(attempt);
            if (ok && answeredAt === undefined) answeredAt = Date.now();
            wake();
          });
          attempts.set(attempt, Date.now());
        }
        // Look again as soon as an attempt settles, or when the newest has waited PROBE_STUCK_MS.
        const pause = attempts.size ? PROBE_STUCK_MS : PROBE_RETRY_MS;
        await Promise.race([sleep(pause), woken]);
        woken = new Promise<void>((resolve) => (wake = resolve));
        // A refusal is tried again PROBE_RETRY_MS later, not at once: no tight loop against a node that refuses.
        if (answeredAt === undefined && attempts.size === 0) await sleep(PROBE_RETRY_MS);
      }
      if (answeredAt === undefined) entry.result = 'gave-up';
      await Promise.all(attempts.keys());
      return { conversationId, answeredAt };
    }),
  );
}

/** Waits until the cluster is settled and no request has failed for the quiet period (bounded); returns when that was. */
async function quiet(deps: FaultDeps, since: number): Promise<number> {
  const until = Date.now() + deps.settings.windowLimitMs;
  for (;;) {
    const calmSince = Math.max(since, deps.journal.lastFailureEnd());
    if (Date.now() - calmSince >= deps.settings.quietMs && (await deps.cluster.isSettled())) return Date.now();
    if (Date.now() > until) {
      deps.log(`  not quiet within ${deps.settings.windowLimitMs / 1000} s; moving on`);
      return Date.now();
    }
    await sleep(100);
  }
}

/** Who owns what, looked at twice when the first look is not clean. */
export async function settledOwnership(deps: Pick<FaultDeps, 'cluster' | 'redis' | 'redisPrefix'>): Promise<{ ownership: OwnershipSnapshot; firstLook: OwnershipSnapshot | undefined }> {
  const first = await ownershipSnapshot(deps.cluster, deps.redis.url, deps.redisPrefix);
  if (ownershipClean(first)) return { ownership: first, firstLook: undefined };
  // States and leases are read a few milliseconds apart: a shard handed over in between looks wrong once.
  await sleep(1_000);
  return { ownership: await ownershipSnapshot(deps.cluster, deps.redis.url, deps.redisPrefix), firstLook: first };
}

/** What a process logs while it waits for Redis at start (src/redis.ts). */
const WAITING_FOR_REDIS = 'waiting for Redis to answer';
const WAITING_LIMIT_MS = 30_000;

const waitingLines = (process: Supervised) => process.problems.get(WAITING_FOR_REDIS)?.count ?? 0;

/** Polls `done` every 50 ms, at most `limitMs`. */
async function until(done: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done() && Date.now() < end) await sleep(50);
}

/**
 * kill -9, then starts again at once, as a supervisor would, while Redis is down: the process must
 * wait for Redis (logging) and become ready once it is back. Resolves once it has been started.
 */
async function restartWhileDown(process: Supervised): Promise<{ ready: Promise<StartedWhileDown> }> {
  await process.crash();
  const startedAt = Date.now();
  // Wrapped: an async function returning the promise itself would wait for it.
  const ready = process.start().then(
    (): StartedWhileDown => ({ process: process.name, startedAt, readyAt: Date.now(), failure: undefined }),
    (error: unknown): StartedWhileDown => ({ process: process.name, startedAt, readyAt: undefined, failure: error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error) }),
  );
  return { ready };
}

export async function runFault(deps: FaultDeps, kind: FaultKind): Promise<FaultWindow> {
  const { settings } = deps;
  const title = FAULTS.find((f) => f.kind === kind)!.title;
  const notes: string[] = [];
  let victim: WebNode | undefined;
  let targets = deps.probeConversations;
  if (kind === 'kill' || kind === 'pause') {
    ({ node: victim, targets } = await victimOf(deps));
    if (!targets.length) notes.push(`no probe conversation lived on ${victim.name}; the load alone measures this fault`);
  }
  let at: number;
  let backAt: number;
  let quietBeforeBackAt: number | undefined;
  let probes: Promise<ProbeResult[]>;
  let startedWhileDown: StartedWhileDown[] = [];
  switch (kind) {
    case 'kill': {
      at = Date.now();
      await victim!.crash();
      probes = probe(deps, targets, victim);
      await probes;
      quietBeforeBackAt = await quiet(deps, at);
      backAt = Date.now();
      await victim!.start();
      break;
    }
    case 'pause': {
      at = Date.now();
      victim!.pause();
      probes = probe(deps, targets, victim);
      await sleep(settings.pauseMs);
      victim!.resume();
      backAt = Date.now();
      break;
    }
    case 'redis': {
      at = Date.now();
      await deps.redis.kill('SIGKILL');
      probes = probe(deps, targets, undefined);
      // The last web node (the balancer skips it until it is ready again) and the worker.
      const restarted = [deps.cluster.nodes.at(-1)!, deps.cluster.worker];
      const waitingBefore = restarted.map(waitingLines);
      const starting = await Promise.all(restarted.map(restartWhileDown));
      notes.push(`${starting.length} processes were killed and started again while Redis was down: ${restarted.map((p) => p.name).join(', ')}`);
      // Redis stays down until both have booted and say they wait for it: a cold start (seconds of CPU
      // on a busy machine) then never falls in the recovery being timed, and the waiting is seen, not assumed.
      await until(() => restarted.every((p, i) => waitingLines(p) > waitingBefore[i]! || !p.running), WAITING_LIMIT_MS);
      await sleep(Math.max(0, at + settings.redisDownMs - Date.now()));
      await deps.redis.startAgain();
      backAt = Date.now();
      startedWhileDown = await Promise.all(starting.map((s) => s.ready));
      break;
    }
    case 'postgres': {
      at = Date.now();
      await deps.postgres.stop();
      probes = probe(deps, targets, undefined);
      await deps.postgres.start();
      backAt = Date.now();
      break;
    }
  }
  const results = await probes;
  const endedAt = await quiet(deps, backAt);
  const { ownership, firstLook } = await settledOwnership(deps);
  return { kind, title, victim: victim?.name, at, backAt, endedAt, quietBeforeBackAt, probes: results, startedWhileDown, ownership, ownershipFirstLook: firstLook, notes };
}
