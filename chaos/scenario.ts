import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defer } from '../bench/support/cleanup';
import { machineTicks } from '../bench/support/cpu';
import { Balancer } from './support/balancer';
import { storeChecks, type Check, type StoreFigures } from './support/checks';
import { extraCallsByWindow, outsideFaults, processRecords, runChecks, timeline, type ProcessRecord } from './support/verdict';
import { Cluster } from './support/cluster';
import { FAULTS, runFault, settledOwnership, type FaultDeps, type FaultWindow } from './support/faults';
import { Journal } from './support/journal';
import { agent, visitor, type LoadContext } from './support/load';
import { hardware, loadAverage, source, type Machine, type Source } from './support/machine';
import { sampleOwnership, type OwnershipSamples, type OwnershipSnapshot } from './support/ownership';
import { sleep } from './support/ports';
import { PrivatePostgres } from './support/postgres';
import { startFakeProvider } from './support/provider';
import { faultFigures, type FaultFigures } from './support/recovery';
import { PrivateRedis } from './support/redis';
import { clusterEnv, type Settings } from './support/settings';
import { createWebhook, createWorkspace, openProbeConversations } from './support/setup';
import { startReceiver, WEBHOOK_EVENTS, webhookChecks, webhookFault, type WebhookFigures } from './support/webhooks';

const REDIS_PREFIX = 'chaos:';

export interface ChaosResult {
  name: 'chaos';
  pass: boolean;
  command: string;
  /** NODE_OPTIONS the run (and every process it started) had: set, it is a diagnostic run, not the documented one. */
  nodeOptions: string | null;
  startedAt: string;
  seconds: number;
  source: Source;
  machine: Machine;
  settings: {
    timings: string;
    heartbeat_ms: number;
    lease_ttl_ms: number;
    dead_after_ms: number;
    join_window_ms: number;
    tick_ms: number;
    web_nodes: number;
    workers: number;
    bot_visitors: number;
    handoff_visitors: number;
    agents: number;
    probe_conversations: number;
    pause_ms: number;
    redis_down_ms: number;
    provider_delta_delay_ms: number;
  };
  load: {
    duration_s: number;
    visitor_messages: number;
    agent_replies: number;
    probe_replies: number;
    requests: number;
    requests_per_s: number;
    failed_requests: number;
    /** Failed requests while no fault was in progress (before the first, after the last window closed). */
    failed_outside_faults: number;
  };
  faults: FaultFigures[];
  store: StoreFigures & {
    /** Provider calls for a message whose stored answer came from another call, by the fault window the message was asked again in. */
    extra_calls_by_window: Record<string, { cut_off: number; completed_not_stored: number }>;
  };
  ownership: OwnershipSnapshot;
  /** Once a second during the load, faults included: any conversation active on two serving nodes. */
  ownershipSamples: OwnershipSamples;
  processes: ProcessRecord[];
  /** The integrator's view: every event delivered, in order, signed; what the fault cost (docs/chaos.md "Webhooks"). */
  webhooks: WebhookFigures;
  checks: Check[];
  /** Every failed request and every cluster event, in order, seconds from the start of the load. */
  timeline: string[];
}

/** The whole run: private infrastructure, a three-node deployment under load, four faults, then the checks. */
export async function runChaos(settings: Settings, log: (line: string) => void): Promise<ChaosResult> {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), 'parley-chaos-'));
  // The embedded Postgres runs as the `postgres` OS user when this runs as root: it must traverse the directory.
  chmodSync(root, 0o711);
  defer('remove the temporary directory', () => rmSync(root, { recursive: true, force: true }));

  log('starting a private Postgres and Redis');
  const [postgres, redis] = await Promise.all([PrivatePostgres.start(root), PrivateRedis.start(root)]);
  const provider = await startFakeProvider(settings.deltaDelayMs);
  defer('close the fake provider', () => provider.close());
  const env = {
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    APP_URL: 'http://chaos.test',
    ...clusterEnv(settings),
    ...provider.env,
    // The webhook receiver listens on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE: '1',
  };
  log('migrating; creating the workspace, chatbot and agents (CLI)');
  const workspace = await createWorkspace(env, settings.agents);
  const receiver = await startReceiver();
  defer('close the webhook receiver', () => receiver.close());
  const webhook = await createWebhook(env, workspace.companyId, receiver.url('chaos'), WEBHOOK_EVENTS);
  receiver.trust('chaos', webhook.secret);

  log(`starting ${settings.webNodes} web nodes and a worker (${settings.timings} timings: heartbeat ${settings.timing.heartbeatMs} ms, lease TTL ${settings.timing.leaseTtlMs} ms)`);
  const cluster = new Cluster(env, settings.webNodes);
  defer('stop the cluster', () => cluster.stop());
  await cluster.start();
  await cluster.settled(120_000);
  const balancer = new Balancer(cluster.nodes);
  balancer.start();
  defer('stop the balancer', () => balancer.stop());
  await sleep(500);

  const journal = new Journal();
  log(`opening ${settings.probeConversations} probe conversations`);
  const probeConversations = await openProbeConversations(balancer, journal, workspace.chatbotKey, settings.probeConversations);

  let stopping = false;
  const load: LoadContext = { balancer, journal, chatbotKey: workspace.chatbotKey, giveUpMs: settings.giveUpMs, stopping: () => stopping };
  log(`load: ${settings.botVisitors} visitors talking to the AI, ${settings.handoffVisitors} waiting for a person, ${settings.agents} agents replying`);
  const loadStartedAt = Date.now();
  const loadAverageStart = loadAverage();
  const ticksStart = machineTicks();
  const sampler = sampleOwnership(cluster);
  const loops = [
    ...Array.from({ length: settings.botVisitors }, (_, i) => visitor(load, `visitor-${i + 1}`, false)),
    ...Array.from({ length: settings.handoffVisitors }, (_, i) => visitor(load, `waiting-${i + 1}`, true)),
    ...workspace.agentTokens.map((token, i) => agent(load, `agent${i + 1}`, token)),
  ];
  await sleep(settings.warmupMs);

  const deps: FaultDeps = { settings, cluster, balancer, journal, load, redis, postgres, redisPrefix: REDIS_PREFIX, probeConversations, probeToken: workspace.probeToken, log };
  const windows: FaultWindow[] = [];
  for (const fault of FAULTS) {
    log(`fault: ${fault.title}`);
    const window = await runFault(deps, fault.kind);
    windows.push(window);
    const figures = faultFigures(window, journal, cluster.processes, settings, loadStartedAt);
    log(
      `  ${window.victim ? `${window.victim}; ` : ''}probe answered again after ${figures.probe_resumed_s ?? 'never'} s; ` +
        `${figures.failed} of ${figures.attempts} requests failed; error-free after ${figures.error_free_s} s; window closed after ${figures.window_s} s`,
    );
  }
  log('fault: webhook receiver answers 500, then hangs past the 10 s limit; the worker is killed (-9) mid-delivery and a web node is killed (-9)');
  const webhookFaultFigures = await webhookFault(cluster, postgres, receiver, loadStartedAt, async () => {
    const window = await runFault(deps, 'kill');
    windows.push(window);
    log(`  ${window.victim ?? ''} killed and restarted during the receiver's outage`);
  });
  await sleep(settings.cooldownMs);
  log('stopping the load (each visitor and agent finishes what it is sending)');
  stopping = true;
  await Promise.all(loops);
  const samples = await sampler.stop();
  const loadEndedAt = Date.now();
  const ticksEnd = machineTicks();
  const loadAverageEnd = loadAverage();

  await cluster.settled(60_000);
  const { ownership } = await settledOwnership(deps);
  log('checking the database against what the load was told');
  const store = await storeChecks(postgres, journal, provider.calls);
  const faults = windows.map((w) => faultFigures(w, journal, cluster.processes, settings, loadStartedAt));
  const nodeOptions = process.env.NODE_OPTIONS?.trim() || null;
  const processes = processRecords(cluster.processes, loadStartedAt);
  log('waiting for the webhook deliveries to drain, then checking them against every committed event');
  const webhooks = await webhookChecks(postgres, receiver, webhookFaultFigures, log);
  const checks: Check[] = [...store.checks, ...webhooks.checks, ...runChecks({ journal, windows, faults, ownership, samples, cluster, processes, settings, loadStartedAt, nodeOptions })];
  const outside = outsideFaults(journal, windows);

  const loadAttempts = journal.attempts.filter((a) => a.sender !== 'probe');
  const busy = ticksEnd.busy - ticksStart.busy;
  const total = ticksEnd.total - ticksStart.total;
  const t = settings.timing;
  return {
    name: 'chaos',
    pass: checks.every((c) => c.pass),
    command: settings.timings === 'test' ? 'npm run chaos' : 'npm run chaos -- --timings production',
    nodeOptions,
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    source: source(),
    machine: {
      ...hardware(),
      postgres: (await postgres.query<{ server_version: string }>('SHOW server_version'))[0]?.server_version ?? 'unknown',
      redis: await redis.version(),
      loadAverageStart,
      loadAverageEnd,
      machineBusyShare: total > 0 ? Math.round((100 * busy) / total) / 100 : 0,
    },
    settings: {
      timings: settings.timings,
      heartbeat_ms: t.heartbeatMs,
      lease_ttl_ms: t.leaseTtlMs,
      dead_after_ms: t.deadAfterMs,
      join_window_ms: t.joinWindowMs,
      tick_ms: t.tickMs,
      web_nodes: settings.webNodes,
      workers: 1,
      bot_visitors: settings.botVisitors,
      handoff_visitors: settings.handoffVisitors,
      agents: settings.agents,
      probe_conversations: settings.probeConversations,
      pause_ms: settings.pauseMs,
      redis_down_ms: settings.redisDownMs,
      provider_delta_delay_ms: settings.deltaDelayMs,
    },
    load: {
      duration_s: Math.round((loadEndedAt - loadStartedAt) / 100) / 10,
      visitor_messages: journal.messages.length,
      agent_replies: journal.replies.filter((r) => r.sender === 'agent').length,
      probe_replies: journal.replies.filter((r) => r.sender === 'probe').length,
      requests: loadAttempts.length,
      requests_per_s: Math.round((10 * loadAttempts.length) / ((loadEndedAt - loadStartedAt) / 1000)) / 10,
      failed_requests: loadAttempts.filter((a) => !a.ok).length,
      failed_outside_faults: outside.length,
    },
    faults,
    store: { ...store.figures, extra_calls_by_window: extraCallsByWindow(store.extraCalls, windows) },
    ownership,
    ownershipSamples: samples,
    webhooks: webhooks.figures,
    processes,
    checks,
    timeline: timeline(journal, cluster, windows, store.extraCalls, loadStartedAt),
  };
}
