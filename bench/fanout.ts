import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { defer, scoped } from './support/cleanup';
import { SocketChild } from './support/fanoutChildren';
import { measuredText, type SocketSpec } from './support/fanoutProtocol';
import { redisCpuSeconds, redisProbe } from './support/fanoutRedis';
import { openHeldConversations, seedWorkspaces, type FanoutWorkspace } from './support/fanoutSetup';
import { CpuMeter } from './support/cpu';
import { analyse, spreadOf, type Sent } from './support/fanoutAnalysis';
import { freshIp, postWidgetStream } from './support/sseClient';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { round } from './support/stats';
import { ownerMap, settledNodes, streamAgent, WebNode } from './support/webNode';

const NODES = 3;
const SOCKETS = 10_000;
/** Sockets are spread over this many load-generator processes, each with its own event loop. */
const CHILDREN = 4;
/** Connections each child opens at once while connecting (connect, sign, subscribe). */
const OPENING_CONCURRENCY = 25;
const CONVERSATIONS_PER_WORKSPACE = 10;
/**
 * Open loop: visitor messages per second across all workspaces (after WARMUP_S of the same). 10/s
 * with 1,000 agents per workspace is 10,000 deliveries a second; with bigger workspaces the rate
 * drops so that deliveries per second stay the same (one machine).
 */
const MAX_RATE_PER_S = 10;
const DELIVERIES_PER_S = 10_000;
const WARMUP_S = 3;
/**
 * Rounds are judged separately and the median round's p99 is the result: the machine is shared,
 * and a burst of someone else's work should cost one round, not the run.
 */
const ROUNDS = 3;
const ROUND_S = 15;
const DRAIN_MS = 3_000;
/** The raw Redis probe runs beside the rounds, so both see the same machine. */
const PROBE_PER_S = 20;
const GOAL_P99_MS = 50;
const IDLE_S = 10;

const rssMb = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
const fileLimitOf = (pid: number) => /Max open files\s+(\S+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1] ?? 'unknown';

/** Fires `count` jobs at a fixed rate (open loop: a slow answer delays no later send) and waits for all. */
async function paced<T>(count: number, perS: number, job: (k: number) => Promise<T>): Promise<T[]> {
  const start = performance.now();
  const pending: Promise<T>[] = [];
  for (let k = 0; k < count; k++) {
    const wait = start + (k * 1000) / perS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(job(k));
  }
  return Promise.all(pending);
}

/**
 * Realtime fan-out: 10,000 agent sockets over 3 web nodes of one cluster, each connected,
 * authorised (`POST /api/agent/broadcasting/auth`) and subscribed to its workspace's
 * `private-company.<id>` as the agent app does. Visitors then send widget messages to a node that
 * does not own the conversation's actor, at a steady rate; every socket of that workspace must get
 * the `message.created`, and the time from the HTTP request to each socket's receipt is measured.
 */
export async function fanout(options: { workspaces?: number } = {}): Promise<BenchResult> {
  const startedAt = new Date();
  const loadAverageStart = round(loadavg()[0]!, 2);
  const workspaceCount = options.workspaces ?? 10;
  const agentsEach = Math.floor(SOCKETS / workspaceCount);
  const rate = Math.max(1, Math.min(MAX_RATE_PER_S, Math.floor(DELIVERIES_PER_S / agentsEach)));
  return scoped(async () => {
    const databaseUrl = await benchDatabase('fanout');
    const prefix = benchRedisPrefix('fanout');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const workspaces = await seedWorkspaces(ctx, workspaceCount, agentsEach);

    const nodes = await Promise.all(Array.from({ length: NODES }, (_, i) => WebNode.start(`fanout-n${i + 1}`, env)));
    for (const node of nodes) defer(`stop ${node.name}`, () => node.stop());
    await settledNodes(nodes);
    const ownerOf = await ownerMap(nodes);
    const agent = streamAgent();
    defer('close client sockets', () => agent.destroy());
    const targets = nodes.map((node) => ({ host: '127.0.0.1', port: node.port, agent }));
    const urls = nodes.map((node) => `http://127.0.0.1:${node.port}`);
    const agentPost = async (path: string, token: string) => (await fetch(`${urls[0]}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status;
    for (const workspace of workspaces) await openHeldConversations(targets[workspace.index % NODES]!, workspace, CONVERSATIONS_PER_WORKSPACE, agentPost);

    // Sockets: agent i of each workspace on node i % 3, dealt round-robin to the children.
    const specs: SocketSpec[][] = Array.from({ length: CHILDREN }, () => []);
    let dealt = 0;
    for (let i = 0; i < agentsEach; i++) {
      for (const workspace of workspaces) {
        specs[dealt % CHILDREN]!.push({ token: workspace.tokens[i]!, node: dealt % NODES, workspace: workspace.index, channel: workspace.channel });
        dealt++;
      }
    }
    const rssBefore = nodes.map((node) => rssMb(node.pid));
    const children = Array.from({ length: CHILDREN }, (_, i) => SocketChild.start(i));
    defer('close the sockets', () => children.forEach((child) => child.close()));
    const openingStarted = performance.now();
    const ready = await Promise.all(children.map((child, i) => child.setup(urls, specs[i]!, OPENING_CONCURRENCY)));
    const openingSeconds = (performance.now() - openingStarted) / 1000;
    const subscribed = workspaces.map((w) => ready.reduce((sum, r) => sum + (r.subscribed[w.index] ?? 0), 0));
    const failedSockets = ready.reduce((sum, r) => sum + r.failed, 0);
    const clocks = await Promise.all(children.map((child) => child.syncClock()));
    const rssAfter = nodes.map((node) => rssMb(node.pid));

    const probe = await redisProbe(prefix);
    defer('close the Redis probe', () => probe.close());
    const idleProbe = await paced(500, 200, () => probe.probe());

    // A visitor message to a node that does not own the conversation's actor, alternating between the other two.
    const send = async (key: number, round: number): Promise<Sent> => {
      const workspace: FanoutWorkspace = workspaces[key % workspaces.length]!;
      const conversation = workspace.conversations[Math.floor(key / workspaces.length) % workspace.conversations.length]!;
      const owner = nodes.indexOf(ownerOf(conversation.id)!);
      const entry = (owner + 1 + (key % (NODES - 1))) % NODES;
      let metaAt: number | undefined;
      const { outcome } = postWidgetStream(targets[entry]!, workspace.chatbotKey, { visitor_id: conversation.visitor, conversation_id: conversation.id, message: measuredText(key) }, freshIp(), (event, _data, at) => {
        if (event === 'meta') metaAt ??= at;
      });
      const ended = await outcome;
      return { key, round, workspace: workspace.index, sentAt: performance.timeOrigin + ended.sentAt, status: ended.status, owner, entry, ...(metaAt === undefined ? {} : { metaMs: metaAt - ended.sentAt }) };
    };
    const warmup = rate * WARMUP_S;
    await paced(warmup, rate, (k) => send(k, -1));

    // What 10,000 idle sockets cost (pings, timers), to tell the fan-out's own CPU from the background's.
    const pids: Record<string, number> = Object.fromEntries([...nodes.map((n, i) => [`node${i}`, n.pid]), ...children.map((c, i) => [`child${i}`, c.pid])]);
    const idle = new CpuMeter(pids);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idleCores = idle.read();
    const idleNodeCores = nodes.reduce((sum, _n, i) => sum + idleCores[`node${i}`]!, 0);
    const idleChildCores = children.reduce((sum, _c, i) => sum + idleCores[`child${i}`]!, 0);

    const info = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    defer('close the Redis info connection', () => info.disconnect());
    const sent: Sent[] = [];
    const perRound = rate * ROUND_S;
    const machineBusy: number[] = [];
    const loadProbe: number[] = [];
    const cpu = new CpuMeter({ ...pids, driver: process.pid });
    const redisCpuBefore = await redisCpuSeconds(info);
    const phaseStarted = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      const roundCpu = new CpuMeter({});
      const first = warmup + round * perRound;
      const probing = (async () => {
        const until = performance.now() + ROUND_S * 1000;
        while (performance.now() < until) {
          loadProbe.push(await probe.probe());
          await new Promise((r) => setTimeout(r, 1000 / PROBE_PER_S));
        }
      })();
      sent.push(...(await paced(perRound, rate, (k) => send(first + k, round))));
      await probing;
      machineBusy.push(roundCpu.read().machine_busy!);
    }
    // Every delivery lands before the children are asked for theirs.
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    const phaseSeconds = (performance.now() - phaseStarted) / 1000;
    const cores = cpu.read();
    const redisCores = ((await redisCpuSeconds(info)) - redisCpuBefore) / phaseSeconds;
    const nodeCores = nodes.reduce((sum, _n, i) => sum + cores[`node${i}`]!, 0);
    const childCores = children.reduce((sum, _c, i) => sum + cores[`child${i}`]!, 0);
    const openFiles = nodes.map((n) => readdirSync(`/proc/${n.pid}/fd`).length);
    const collected = await Promise.all(children.map((child) => child.collect()));

    const result = analyse(sent, collected, children.map((c) => c.offsetMs), subscribed, ROUNDS);
    const idleProbeSpread = spreadOf(idleProbe);
    const loadProbeSpread = spreadOf(loadProbe);
    const disconnects = collected.reduce((sum, s) => sum + s.disconnects, 0);
    const roundP99 = result.rounds.map((r) => r.p99);
    const medianRound = [...roundP99].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
    const complete = result.received === result.expected && failedSockets === 0 && result.failedSends === 0 && disconnects === 0;
    const pass = medianRound <= GOAL_P99_MS && complete;
    const perDelivery = (coresUsed: number, idleCoresUsed: number) => round((1e6 * (coresUsed - idleCoresUsed) * phaseSeconds) / result.received, 1);

    return {
      name: 'fanout',
      title: `message.created to ${SOCKETS.toLocaleString('en')} agent sockets over ${NODES} web nodes (${workspaceCount} workspace${workspaceCount === 1 ? '' : 's'} x ${agentsEach.toLocaleString('en')} agents)`,
      goal: `visitor message -> each agent socket p99 <= ${GOAL_P99_MS} ms (median of ${ROUNDS} rounds), every socket gets every event`,
      pass,
      figures: {
        delivery_p99_ms_median_round: medianRound,
        delivery_p50_ms: result.delivery.p50,
        delivery_p95_ms: result.delivery.p95,
        delivery_p99_ms: result.delivery.p99,
        delivery_max_ms: result.delivery.max,
        ...Object.fromEntries(roundP99.map((p99, r) => [`round${r + 1}_p99_ms`, p99])),
        ...Object.fromEntries(machineBusy.map((busy, r) => [`round${r + 1}_machine_busy_percent`, Math.round(100 * busy)])),
        deliveries: result.received,
        deliveries_expected: result.expected,
        messages_incomplete: result.incomplete,
        first_socket_p50_ms: result.firstSocket.p50,
        first_socket_p99_ms: result.firstSocket.p99,
        spread_p50_ms: result.fanSpread.p50,
        spread_p99_ms: result.fanSpread.p99,
        stored_meta_p50_ms: result.meta.p50,
        stored_meta_p99_ms: result.meta.p99,
        on_owner_node_p99_ms: result.byPlace.owner.p99,
        on_entry_node_p99_ms: result.byPlace.entry.p99,
        on_third_node_p99_ms: result.byPlace.other.p99,
        messages_per_s: round(sent.length / (phaseSeconds - DRAIN_MS / 1000), 1),
        deliveries_per_s: Math.round(result.received / (phaseSeconds - DRAIN_MS / 1000)),
        failed_sends: result.failedSends,
        failed_sockets: failedSockets,
        disconnects,
        nodes_cores: round(nodeCores, 2),
        nodes_idle_cores: round(idleNodeCores, 2),
        node_cpu_us_per_delivery: perDelivery(nodeCores, idleNodeCores),
        sockets_cores: round(childCores, 2),
        sockets_cpu_us_per_delivery: perDelivery(childCores, idleChildCores),
        redis_cores: round(redisCores, 2),
        driver_cores: round(cores.driver!, 2),
        machine_busy_percent: Math.round(100 * cores.machine_busy!),
        node_rss_mb_per_1000_sockets: round((rssAfter.reduce((a, b) => a + b, 0) - rssBefore.reduce((a, b) => a + b, 0)) / (SOCKETS / 1000), 1),
        connect_subscribe_per_s: Math.round(SOCKETS / openingSeconds),
      },
      baseline: {
        redis_spublish_loaded_p50_ms: loadProbeSpread.p50,
        redis_spublish_loaded_p99_ms: loadProbeSpread.p99,
        redis_spublish_idle_p50_ms: idleProbeSpread.p50,
        redis_spublish_idle_p99_ms: idleProbeSpread.p99,
      },
      settings: {
        nodes: NODES,
        sockets: SOCKETS,
        workspaces: workspaceCount,
        agents_per_workspace: agentsEach,
        socket_children: CHILDREN,
        conversations: workspaceCount * CONVERSATIONS_PER_WORKSPACE,
        rate_per_s: rate,
        rounds: ROUNDS,
        round_s: ROUND_S,
        messages: sent.length,
        warmup_messages: warmup,
        subscribed: subscribed.reduce((a, b) => a + b, 0),
        node_open_files: openFiles.join('/'),
        node_file_limit: fileLimitOf(nodes[0]!.pid),
        child_file_limit: ready[0]?.fileLimit ?? 'unknown',
        child_open_files: ready.map((r) => r.openFiles).join('/'),
        clock_uncertainty_ms: round(Math.max(...clocks.map((c) => c.uncertaintyMs)), 3),
        child_heap_mb: collected.map((s) => s.heapMb).join('/'),
        node_rss_mb: rssAfter.join('/'),
        connect_subscribe_s: round(openingSeconds, 1),
        load_average_start: loadAverageStart,
        load_average_end: round(loadavg()[0]!, 2),
      },
      notes: [
        `nodes: ${NODES} x dist/test/support/cluster/nodeMain.js (startWeb, as npm start runs it), one cluster on Redis (sharded pub/sub adapter), LOG_LEVEL=info`,
        `sockets: socket.io-client over websocket in ${CHILDREN} child processes (bench/support/fanoutClient.ts), agent i of each workspace on node i % ${NODES}; each connected with {token}, signed by POST /api/agent/broadcasting/auth and subscribed to private-company.<id> with an ack`,
        `messages: POST /widget/{key}/stream with a visitor message in a conversation an agent holds (stored and fanned out, no AI answer), always to a node that does not own the conversation's actor; open loop at ${rate}/s, ${ROUNDS} rounds of ${ROUND_S} s after ${warmup} warm-up messages`,
        'delivery: from just before the request is written (driver clock) to each socket receiving message.created (child clock, offset measured over IPC); first_socket: the earliest receipt per message; spread: last minus first receipt per message; stored_meta: to the SSE meta event (the message committed on the owner node and relayed back)',
        'cpu: cores used during the rounds (1.0 = one core busy) from /proc; *_us_per_delivery subtracts what the same processes use idle with every socket connected; machine_busy counts every process on the machine (Postgres and other work included)',
        `baseline: SPUBLISH -> SSUBSCRIBE round trip on the same Redis with a 272-byte payload, at ${PROBE_PER_S}/s during the rounds (loaded) and 500 at 200/s before them (idle)`,
        ...(failedSockets ? [`${failedSockets} sockets could not be opened; first error: ${ready.find((r) => r.firstError)?.firstError ?? '?'}`] : []),
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
