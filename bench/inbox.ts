import { mkdirSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { defer, scoped } from './support/cleanup';
import { cpuSeconds, CpuMeter } from './support/cpu';
import { costs } from './support/inboxCost';
import { explainInbox } from './support/inboxExplain';
import { httpTarget, timedGet, type Answer, type HttpTarget } from './support/inboxHttp';
import { backendMeter } from './support/databaseBackends';
import { postgresCpuSeconds } from './support/inboxPostgres';
import { seedInbox, type InboxWorkspace } from './support/inboxSeed';
import { HARNESS_CORE, loadNow, NODE_CORE, pin, pinningSettings, pinSelf, pinServices } from './support/pinning';
import { childEnv, ROOT } from './support/processes';
import { hotSpots } from './support/profile';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { percentile, round } from './support/stats';
import { PROFILE_DIR } from './throughput';
import { WebNode } from './support/webNode';
import { Running } from '../test/support/processes';

const CONVERSATIONS = 100_000;
/** Other tenants in the same tables, so the measured workspace's rows are found among others'. */
const NEIGHBOURS = { workspaces: 3, conversations: 5_000 };
const WARMUP = 30;
/** Scenarios alternate in blocks, so a noisy neighbour on the machine hits them all alike. */
const ROUNDS = 3;
const SEQUENTIAL_BLOCK = 100;
const CONCURRENT_BLOCK = 200;
/** A few agents refreshing at once: a team's inbox apps reloading after a burst of events. */
const CONCURRENCY = 4;
/** p95 goals: the default list (also a later page, also with a thread open), the filtered ones, and any of them 4 in flight. */
const GOAL_P95_MS = { default: 10, filtered: 15, concurrent: 25 };
/** The page `page` measures: rows 241-300, reached with the cursors of the pages before it. */
const DEEP_PAGE = 5;
const EXPLAIN_FILE = resolve(PROFILE_DIR, 'inbox-explain.txt');
const BARE_MAIN = resolve(__dirname, 'support/bareHttpMain.js');
/** The pinned cost phase: each target saturated (CONCURRENCY in flight) this long, this many rounds, alternating. */
const COST_MS = 2_000;
const COST_ROUNDS = 3;
/** The scenarios whose node CPU per response the cost phase measures (beside /healthz and bare node:http): those with a goal. */
const COSTED = ['all', 'waiting', 'mine', 'conversation', 'page'] as const;

const SCENARIOS = ['all', 'waiting', 'mine', 'conversation', 'page', 'search_text', 'search_name', 'search_common', 'healthz'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Which goal a scenario answers to; searches have none and are reported as measured. */
const GOAL_OF: Partial<Record<Scenario, 'default' | 'filtered'>> = { all: 'default', conversation: 'default', page: 'default', waiting: 'filtered', mine: 'filtered' };

/** A different conversation's number each time (the seed's "item <n>" and "Visitor <n>"), so no search repeats. */
const seedNumber = (n: number) => 1000 + ((n * 7919) % 90_000);

interface Samples {
  sequential: number[];
  concurrent: number[];
  nodeCpuS: number;
  sequentialCount: number;
  failed: number;
}

function pathOf(scenario: Scenario, n: number, workspace: InboxWorkspace, deepCursor: string): string {
  switch (scenario) {
    case 'all':
      return '/api/agent/inbox';
    case 'waiting':
    case 'mine':
      return `/api/agent/inbox?filter=${scenario}`;
    case 'conversation':
      return `/api/agent/inbox?conversation=${workspace.openable[n % workspace.openable.length]!}`;
    case 'page':
      return `/api/agent/inbox?before=${deepCursor}`;
    // One conversation's message ("Hi, I ordered item <n> last week ..."): a rare match.
    case 'search_text':
      return `/api/agent/inbox?q=${encodeURIComponent(`item ${seedNumber(n)} `)}`;
    // "Visitor <n>" and "Visitor <n>0".."<n>9": a handful of names.
    case 'search_name':
      return `/api/agent/inbox?q=${encodeURIComponent(`Visitor ${seedNumber(n)}`)}`;
    // A word in every conversation's messages: the newest 60 of all of them.
    case 'search_common':
      return '/api/agent/inbox?q=parcel';
    case 'healthz':
      return '/healthz';
  }
}

/** Cores used while `work` ran: the node, the Postgres server (all of it), and the whole machine. */
async function metered(nodePid: number, work: () => Promise<void>): Promise<{ node: number; postgres: number; machineBusy: number; seconds: number }> {
  const meter = new CpuMeter({ node: nodePid });
  const postgres = postgresCpuSeconds();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const cores = meter.read();
  return { node: cores.node!, postgres: (postgresCpuSeconds() - postgres) / seconds, machineBusy: cores.machine_busy!, seconds };
}

/** Closed loop: `concurrency` workers, each sending the next request when its last one answered. */
async function block(count: number, concurrency: number, fire: (n: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let n = next++; n < count; n = next++) answers.push(await fire(n));
    }),
  );
  return answers;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50), 2), p95: round(percentile(sorted, 95), 2), p99: round(percentile(sorted, 99), 2) };
};

interface InboxBody {
  conversations: unknown[];
  counts: Record<string, number>;
  groups: Record<string, number>;
  listed: number;
  next_cursor: string | null;
  active: { id: string } | null;
}

/**
 * `GET /api/agent/inbox` over HTTP against one web node, with 100,000 conversations in the
 * workspace (and 15,000 of other workspaces in the same tables): the default list, the `waiting`
 * and `mine` filters, the default list with an open thread (`conversation=<uuid>`), a deep page
 * (`before`) and three searches (`q`). Each
 * request is timed one at a time and with 4 in flight. Baseline: GET /healthz through the same node.
 * Issue 23's pinned method (bench/support/pinning.ts): the node's CPU per response, each scenario
 * saturated in turn, against /healthz and a bare node:http server pinned to the same core.
 * `withoutInboxIndexes` drops migration 0003's indexes after seeding: the same run, before that migration.
 */
export async function inbox(options: { cpuProf?: boolean; withoutInboxIndexes?: boolean } = {}): Promise<BenchResult> {
  const startedAt = new Date();
  const loadAverageStart = round(loadavg()[0]!, 2);
  const loadAtStart = loadNow();
  return scoped(async () => {
    pinSelf();
    const services = pinServices();
    const databaseUrl = await benchDatabase('inbox');
    const databaseName = new URL(databaseUrl).pathname.slice(1);
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('inbox'), APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const seedStarted = performance.now();
    const workspace = await seedInbox(ctx, CONVERSATIONS, NEIGHBOURS);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    // The same run without migration 0003's indexes: what they are worth, measured under the same conditions.
    if (options.withoutInboxIndexes) await ctx.db.sequelize.query('DROP INDEX conversations_open_recent, conversations_inbox_groups');

    // --cpu-prof: the node profiles itself (written when it stops) and its hot spots join the notes.
    if (options.cpuProf) mkdirSync(PROFILE_DIR, { recursive: true });
    const node = await WebNode.start('inbox-n1', env, options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []);
    defer('stop the inbox node', () => node.stop());
    // The pinned method (bench/support/pinning.ts): the node and the bare node:http baseline on one core, this driver on the other.
    const bare = new Running(BARE_MAIN, [], { env: childEnv({}) });
    defer('stop the bare server', () => bare.child.kill('SIGKILL'));
    const bareListening = await bare.waitForLog((entry) => entry.msg === 'listening', 10_000);
    const pinned = pin(node.pid, NODE_CORE) && pin(bare.child.pid!, NODE_CORE);
    const target: HttpTarget = httpTarget(node.port, CONCURRENCY);
    const bareTarget: HttpTarget = httpTarget(Number(bareListening.port), CONCURRENCY);
    defer('close client sockets', () => {
      target.agent.destroy();
      bareTarget.agent.destroy();
    });
    const auth = { authorization: `Bearer ${workspace.token}` };
    let deepCursor = '';
    const fire = (scenario: Scenario, n: number) => timedGet(target, pathOf(scenario, n, workspace, deepCursor), scenario === 'healthz' ? {} : auth);

    // A single node takes every shard before it serves actors: opening an unread thread asks one.
    for (let tries = 0; ; tries++) {
      const answer = await fire('conversation', 0);
      if (answer.status === 200) break;
      if (tries > 300) throw new Error(`the node never answered the inbox: ${answer.status} ${answer.body.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The cursor of a deep page, walked to as the app's "load more" would.
    for (let page = 1; page < DEEP_PAGE; page++) {
      const answer = await timedGet(target, `/api/agent/inbox${deepCursor ? `?before=${deepCursor}` : ''}`, auth);
      deepCursor = (JSON.parse(answer.body) as InboxBody).next_cursor ?? '';
      if (!deepCursor) throw new Error(`the inbox ended before page ${DEEP_PAGE}: ${answer.status}`);
    }
    // Every thread opened once: the first open of an unread thread marks it read through its actor.
    const firstOpen = await block(workspace.openable.length - 1, 1, (n) => fire('conversation', n + 1));
    for (const scenario of SCENARIOS) await block(WARMUP, 1, (n) => fire(scenario, n));

    const samples = Object.fromEntries(SCENARIOS.map((s) => [s, { sequential: [], concurrent: [], nodeCpuS: 0, sequentialCount: 0, failed: 0 } as Samples])) as Record<Scenario, Samples>;
    const record = (scenario: Scenario, answers: Answer[], into: 'sequential' | 'concurrent') => {
      for (const answer of answers) {
        samples[scenario][into].push(answer.ms);
        if (answer.status !== 200) samples[scenario].failed++;
      }
    };
    let sent = 0;
    const sequential = await metered(node.pid, async () => {
      for (let r = 0; r < ROUNDS; r++) {
        for (const scenario of SCENARIOS) {
          const cpu = cpuSeconds(node.pid);
          record(scenario, await block(SEQUENTIAL_BLOCK, 1, () => fire(scenario, sent++)), 'sequential');
          samples[scenario].nodeCpuS += cpuSeconds(node.pid) - cpu;
          samples[scenario].sequentialCount += SEQUENTIAL_BLOCK;
        }
      }
    });
    const concurrent = await metered(node.pid, async () => {
      for (let r = 0; r < ROUNDS; r++) {
        for (const scenario of SCENARIOS) record(scenario, await block(CONCURRENT_BLOCK, CONCURRENCY, () => fire(scenario, sent++)), 'concurrent');
      }
    });

    // Node CPU per response, pinned, against /healthz through the same node and a bare node:http answer.
    const loadBeforeCost = loadNow();
    const onNode = (scenario: Scenario) => ({ pid: node.pid, fire: () => fire(scenario, sent++) });
    const cost = await costs(
      {
        all: onNode('all'),
        waiting: onNode('waiting'),
        mine: onNode('mine'),
        conversation: onNode('conversation'),
        page: onNode('page'),
        healthz: onNode('healthz'),
        bare: { pid: bare.child.pid!, fire: () => timedGet(bareTarget, '/healthz') },
      },
      // The bench database's own backends: what Postgres spends per response, whoever else uses the server.
      { ms: COST_MS, rounds: COST_ROUNDS, concurrency: CONCURRENCY, meters: { postgres: backendMeter(databaseName) } },
    );
    const loadAfterCost = loadNow();

    // What one response holds, as the app sees it (and a check that the seed is what it claims).
    const shape = JSON.parse((await fire('conversation', 0)).body) as InboxBody;
    const explained = await explainInbox(
      ctx.db.sequelize,
      { companyId: workspace.companyId, userId: workspace.agentId, thread: workspace.openable[0]! },
      {
        all: { filter: 'all' },
        waiting: { filter: 'waiting' },
        mine: { filter: 'mine' },
        page: { filter: 'all', before: deepCursor },
        search_text: { filter: 'all', q: `item ${seedNumber(1)} ` },
        search_name: { filter: 'all', q: `Visitor ${seedNumber(1)}` },
        search_common: { filter: 'all', q: 'parcel' },
      },
      EXPLAIN_FILE,
    );

    const profiled: string[] = [];
    if (options.cpuProf) {
      const pid = node.pid;
      await node.stop();
      // The directory is shared with other benchmarks' profiles: take the one this node wrote (node names it by pid).
      const mine = readdirSync(PROFILE_DIR).filter((name) => name.endsWith('.cpuprofile') && name.includes(`.${pid}.`));
      const file = mine.length ? resolve(PROFILE_DIR, mine.sort().at(-1)!) : undefined;
      if (file) {
        profiled.push(`cpu profile of the node: ${file.slice(ROOT.length + 1)}; top self time:`);
        for (const spot of hotSpots(file, 20)) profiled.push(`  ${spot.selfPercent.toFixed(1).padStart(5)}%  ${spot.where}`);
      }
    }

    const figures: Record<string, number> = {};
    let pass = true;
    for (const scenario of SCENARIOS) {
      if (scenario === 'healthz') continue;
      const seq = stats(samples[scenario].sequential);
      const conc = stats(samples[scenario].concurrent);
      pass &&= samples[scenario].failed === 0;
      const goal = GOAL_OF[scenario];
      if (goal) pass &&= seq.p95 <= GOAL_P95_MS[goal] && conc.p95 <= GOAL_P95_MS.concurrent;
      figures[`${scenario}_p50_ms`] = seq.p50;
      figures[`${scenario}_p95_ms`] = seq.p95;
      figures[`${scenario}_p99_ms`] = seq.p99;
      figures[`${scenario}_c${CONCURRENCY}_p50_ms`] = conc.p50;
      figures[`${scenario}_c${CONCURRENCY}_p95_ms`] = conc.p95;
      figures[`${scenario}_c${CONCURRENCY}_p99_ms`] = conc.p99;
      figures[`${scenario}_node_cpu_us`] = Math.round((1e6 * samples[scenario].nodeCpuS) / samples[scenario].sequentialCount);
    }
    for (const scenario of COSTED) {
      figures[`${scenario}_pinned_cpu_us`] = Math.round(cost[scenario].cpuUs);
      figures[`${scenario}_cpu_x_bare`] = round(cost[scenario].cpuUs / cost.bare.cpuUs, 1);
      figures[`${scenario}_cpu_x_healthz`] = round(cost[scenario].cpuUs / cost.healthz.cpuUs, 1);
      figures[`${scenario}_pinned_per_s`] = Math.round(cost[scenario].perS);
      figures[`${scenario}_postgres_cpu_us`] = Math.round(cost[scenario].alsoUs.postgres!);
    }
    figures.cost_failed = Object.values(cost).reduce((sum: number, c) => sum + c.failed, 0);
    const open = stats(firstOpen.map((a) => a.ms));
    figures.first_open_p50_ms = open.p50;
    figures.first_open_p95_ms = open.p95;
    for (const q of explained) {
      const key = q.name.replace(' ', '_');
      figures[`db_${key}_ms`] = round(q.executionMs, 2);
      figures[`db_${key}_buffers`] = q.buffers;
    }
    for (const [phase, use] of [['sequential', sequential], [`c${CONCURRENCY}`, concurrent]] as const) {
      figures[`${phase}_node_cores`] = round(use.node, 2);
      figures[`${phase}_postgres_cores`] = round(use.postgres, 2);
      figures[`${phase}_postgres_cpu_ms_per_inbox`] = round((1000 * use.postgres * use.seconds) / (ROUNDS * (phase === 'sequential' ? SEQUENTIAL_BLOCK : CONCURRENT_BLOCK) * (SCENARIOS.length - 1)), 1);
      figures[`${phase}_machine_busy_cores`] = round(use.machineBusy * cpus().length, 2);
    }
    figures.failed = SCENARIOS.reduce((sum, s) => sum + samples[s].failed, 0) + firstOpen.filter((a) => a.status !== 200).length + figures.cost_failed;
    pass &&= figures.failed === 0;
    const healthzSeq = stats(samples.healthz.sequential);
    const healthzConc = stats(samples.healthz.concurrent);
    return {
      name: 'inbox',
      title: 'GET /api/agent/inbox over HTTP, one web node, 100,000 conversations in the workspace',
      goal:
        `p95 <= ${GOAL_P95_MS.default} ms for the default list (also page ${DEEP_PAGE} and with conversation=<uuid>), <= ${GOAL_P95_MS.filtered} ms for filter=waiting and filter=mine, ` +
        `<= ${GOAL_P95_MS.concurrent} ms for any of them ${CONCURRENCY} in flight; searches (q) have no goal`,
      pass,
      figures,
      baseline: {
        healthz_p50_ms: healthzSeq.p50,
        healthz_p95_ms: healthzSeq.p95,
        healthz_p99_ms: healthzSeq.p99,
        [`healthz_c${CONCURRENCY}_p95_ms`]: healthzConc.p95,
        healthz_node_cpu_us: Math.round((1e6 * samples.healthz.nodeCpuS) / samples.healthz.sequentialCount),
        healthz_pinned_cpu_us: Math.round(cost.healthz.cpuUs),
        healthz_postgres_cpu_us: Math.round(cost.healthz.alsoUs.postgres!),
        bare_get_pinned_cpu_us: Math.round(cost.bare.cpuUs),
        bare_get_pinned_per_s: Math.round(cost.bare.perS),
      },
      settings: {
        conversations: CONVERSATIONS,
        neighbour_workspaces: NEIGHBOURS.workspaces,
        neighbour_conversations: NEIGHBOURS.conversations,
        sequential_per_scenario: ROUNDS * SEQUENTIAL_BLOCK,
        concurrent_per_scenario: ROUNDS * CONCURRENT_BLOCK,
        concurrency: CONCURRENCY,
        open_threads: workspace.openable.length,
        listed: shape.listed,
        count_all: shape.counts.all ?? -1,
        count_resolved: shape.counts.resolved ?? -1,
        count_unread: shape.counts.unread ?? -1,
        group_waiting: shape.groups.waiting ?? -1,
        group_mine: shape.groups.mine ?? -1,
        group_team: shape.groups.team ?? -1,
        seed_s: round(seedSeconds, 1),
        inbox_indexes: options.withoutInboxIndexes ? 'dropped (without 0003)' : 'as migrated',
        load_average_start: loadAverageStart,
        load_average_end: round(loadavg()[0]!, 2),
        load_1_5_15_at_start: loadAtStart,
        load_1_5_15_cost_phase: `${loadBeforeCost} -> ${loadAfterCost}`,
        ...pinningSettings(services),
        pinned: pinned ? 'yes' : 'no (taskset refused)',
      },
      notes: [
        'node: dist/test/support/cluster/nodeMain.js (startWeb, as npm start runs it), cluster mode on Redis, LOG_LEVEL=info; the driver is this process, node:http keep-alive, on the same machine',
        `seed: bulk SQL (generate_series), ~70% closed over 90 days, ~22% with the bot, 6% held by 30 agents, 2% waiting (a quarter escalated), unread on 30% of open ones, tags on ~5%, a visitor row for a third; then VACUUM ANALYZE`,
        `sequential: one request at a time, ${ROUNDS} rounds of ${SEQUENTIAL_BLOCK} per scenario, alternating; concurrent: closed loop, ${CONCURRENCY} in flight, ${ROUNDS} rounds of ${CONCURRENT_BLOCK}`,
        'conversation: the default list plus an open thread, cycling over 40 recent open conversations; first_open is the first time each was opened (an unread one is marked read through its actor)',
        `page: the default list's page ${DEEP_PAGE} (before=<the cursor of page ${DEEP_PAGE - 1}>); search_text: q="item <n> " (one conversation's message), search_name: q="Visitor <n>" (up to 11 names), search_common: q=parcel (in every conversation's messages), n different each time`,
        `db_*: EXPLAIN (ANALYZE, BUFFERS) of the statements src/domain/inbox sends (list_*: the page and the counts, one statement; thread: the default list with a thread open), second run; plans in ${EXPLAIN_FILE.slice(ROOT.length + 1)}`,
        `pinned: the node and the bare node:http server on core ${NODE_CORE}, this driver on core ${HARNESS_CORE}, for the whole run (latencies included); *_pinned_cpu_us = the node's utime+stime from /proc over a block / responses, median of ${COST_ROUNDS} rounds of ${COST_MS / 1000} s per target, ${CONCURRENCY} in flight, alternating; *_cpu_x_bare / *_cpu_x_healthz against a bare node:http GET and GET /healthz through the same node, same phase; *_postgres_cpu_us: the CPU of the bench database's backends (from /proc, by their process titles) per response, same blocks, whoever else uses the server`,
        'cores: CPU used during the sequential and the 4-in-flight phases (1.0 = one core busy), from /proc: the node, the Postgres server (every database, parallel workers included) and the whole machine (2 cores, shared with other work)',
        ...profiled,
        ...explained.map((q) => `${q.name}: ${q.executionMs.toFixed(2)} ms in Postgres, ${q.buffers} buffers; ${q.plan.split('\n')[0]!.trim().slice(0, 140)}`),
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
