import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../config/env';
import { closeContext, openContext } from '../src/boot/openContext';
import { createLogger } from '../src/logger';
import { defer, scoped } from './support/cleanup';
import { openHeldConversations, seedWorkspaces } from './support/fanoutSetup';
import { LiveAgent } from './support/liveInboxAgent';
import { judge, measuredText, type Sent, type StoredMessage } from './support/liveInboxChecks';
import { freshIp, postWidgetStream } from './support/sseClient';
import { APP_KEY, benchDatabase, benchRedisPrefix, REDIS_URL } from './support/resources';
import type { BenchResult } from './support/report';
import { round, summarize } from './support/stats';
import { settledNodes, streamAgent, WebNode } from './support/webNode';

const NODES = 3;
/** The full numbers; `--scale` multiplies both (the load of a 2-core machine shared with other work may call for less). */
const AGENTS = 50;
const VISITORS = 500;
/** Conversations each agent has open; every watched conversation is open for two agents (where the numbers allow). */
const WATCHED_EACH = 3;
/** A visitor writes every 10-20 s: at most 6 a minute, under the flood rule's 10. */
const VISITOR_PAUSE_MS: [number, number] = [10_000, 20_000];
/** An agent replies every 15-30 s, typing for 1-3 s first. */
const AGENT_PAUSE_MS: [number, number] = [15_000, 30_000];
const TYPING_MS: [number, number] = [1_000, 3_000];
/** Agents open their conversations during the first seconds of the load, so watcher changes interleave with messages. */
const OPENING_MS = 10_000;
const LOAD_MS = 60_000;
const DRAIN_MS = 3_000;

const between = ([low, high]: [number, number]) => low + Math.random() * (high - low);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The live inbox under load: agents on 3 web nodes, each with a few conversations open (subscribed
 * to their `private-conversation.<uuid>`), typing and replying, while visitors chat through the
 * widget stream. Every event each agent receives is recorded; at the end each agent's record of
 * each conversation it watched is checked against the database (every `message.created` stored
 * after it subscribed arrived, once) and against the contract (`seq` never decreasing across
 * `message.created`, `typing` and `conversation.watchers`; no repeats; the last watcher list right).
 */
export async function liveInbox(options: { scale: number }): Promise<BenchResult> {
  const startedAt = new Date();
  const loadAverageStart = round(loadavg()[0]!, 2);
  const agentCount = Math.max(2, Math.round(AGENTS * options.scale));
  const visitorCount = Math.max(WATCHED_EACH, Math.round(VISITORS * options.scale));
  const watchedCount = Math.min(visitorCount, Math.ceil((agentCount * WATCHED_EACH) / 2));
  return scoped(async () => {
    const databaseUrl = await benchDatabase('liveinbox');
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: benchRedisPrefix('liveinbox'), APP_KEY };
    const ctx = await openContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), createLogger('silent'), { redis: false });
    defer('close the bench context', () => closeContext(ctx));
    const [workspace] = await seedWorkspaces(ctx, 1, agentCount);
    const db = ctx.db.sequelize;
    const owners = await db.query<{ id: number; user_id: number }>('SELECT id, user_id FROM access_tokens WHERE company_id = $1', { bind: [workspace!.companyId], type: QueryTypes.SELECT });
    const userOfToken = new Map(owners.map((o) => [o.id, o.user_id]));

    const nodes = await Promise.all(Array.from({ length: NODES }, (_, i) => WebNode.start(`live-n${i + 1}`, env)));
    for (const node of nodes) defer(`stop ${node.name}`, () => node.stop());
    await settledNodes(nodes);
    const httpAgent = streamAgent();
    defer('close client sockets', () => httpAgent.destroy());
    const targets = nodes.map((node) => ({ host: '127.0.0.1', port: node.port, agent: httpAgent }));
    const urls = nodes.map((node) => `http://127.0.0.1:${node.port}`);
    const agentPost = async (path: string, token: string) => (await fetch(`${urls[0]}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status;
    const setupStarted = performance.now();
    await openHeldConversations(targets[0]!, workspace!, visitorCount, agentPost);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const conversations = workspace!.conversations;

    // Agent i on node i % 3; it watches conversations 3i, 3i+1, 3i+2 (mod the watched ones), so each is open for two agents.
    const agents = await Promise.all(
      workspace!.tokens.map((token, i) => LiveAgent.connect(i, userOfToken.get(Number(token.split('|')[0]))!, i % NODES, urls[i % NODES]!, token)),
    );
    defer('close the agent sockets', () => agents.forEach((a) => a.close()));
    const watchedBy = (agent: LiveAgent) => Array.from({ length: WATCHED_EACH }, (_, j) => conversations[(agent.index * WATCHED_EACH + j) % watchedCount]!.id);

    const sent = new Map<number, Sent>();
    let nextKey = 0;
    const failures = { visitor: 0, reply: 0, typing: 0, firstError: '' };
    const loadStarted = performance.now();
    const running = () => performance.now() - loadStarted < LOAD_MS;

    const visitor = async (conversation: { id: string; visitor: string }) => {
      await sleep(Math.random() * VISITOR_PAUSE_MS[1]);
      while (running()) {
        const key = nextKey++;
        const node = Math.floor(Math.random() * NODES);
        const { outcome } = postWidgetStream(targets[node]!, workspace!.chatbotKey, { visitor_id: conversation.visitor, conversation_id: conversation.id, message: measuredText(key) }, freshIp(), () => undefined);
        const ended = await outcome;
        if (ended.status === 200 && ended.complete) sent.set(key, { sentAt: ended.sentAt, node });
        else {
          failures.visitor++;
          failures.firstError ||= `visitor message: ${ended.status} ${ended.detail ?? ended.lastData}`;
        }
        await sleep(between(VISITOR_PAUSE_MS));
      }
    };
    const agentAtWork = async (agent: LiveAgent) => {
      const watched = watchedBy(agent);
      for (const id of watched) {
        await sleep(Math.random() * (OPENING_MS / WATCHED_EACH));
        await agent.watch(id);
      }
      await sleep(between(AGENT_PAUSE_MS) / 2);
      while (running()) {
        const id = watched[Math.floor(Math.random() * watched.length)]!;
        if (!(await agent.typing(id, true))) failures.typing++;
        await sleep(between(TYPING_MS));
        const key = nextKey++;
        const reply = await agent.reply(id, measuredText(key));
        if (reply.status === 200) sent.set(key, { sentAt: reply.sentAt, node: agent.node });
        else {
          failures.reply++;
          failures.firstError ||= `agent reply: ${reply.status}`;
        }
        if (!(await agent.typing(id, false))) failures.typing++;
        await sleep(between(AGENT_PAUSE_MS));
      }
    };
    await Promise.all([...conversations.map(visitor), ...agents.map(agentAtWork)]);
    await sleep(DRAIN_MS);
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    const stored = (
      await db.query<{ id: number; public_id: string; created_at: Date }>(
        'SELECT m.id, c.public_id, m.created_at FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.company_id = $1',
        { bind: [workspace!.companyId], type: QueryTypes.SELECT },
      )
    ).map((row): StoredMessage => ({ id: Number(row.id), conversationId: row.public_id, createdAt: new Date(row.created_at).getTime() }));
    const watchers = new Map<string, Set<number>>();
    for (const agent of agents) for (const id of watchedBy(agent)) watchers.set(id, (watchers.get(id) ?? new Set()).add(agent.userId));
    const verdict = judge(agents, stored, watchers, sent);
    const all = summarize(verdict.latencies.all);
    const cross = summarize(verdict.latencies.crossNode);
    const faults = verdict.missing + verdict.duplicates + verdict.outOfOrder + verdict.unknown + verdict.staleWatchers;
    const problems = nodes.map((n) => n.problems);

    return {
      name: 'liveInbox',
      title: `live inbox: ${agentCount} agents on ${NODES} web nodes watching ${watchedCount} conversations, typing and replying, while ${visitorCount} visitors chat`,
      goal: 'every watching agent gets every message.created, typing and conversation.watchers of its conversations, seq never decreasing, no duplicates',
      pass: faults === 0 && verdict.pairs > 0,
      figures: {
        delivery_p50_ms: round(all.p50, 1),
        delivery_p99_ms: round(all.p99, 1),
        delivery_max_ms: round(all.max, 1),
        cross_node_p50_ms: round(cross.p50, 1),
        cross_node_p99_ms: round(cross.p99, 1),
        cross_node_receipts: cross.n,
        measured_sends: sent.size,
        receipts: all.n,
        message_created: verdict.counts['message.created'],
        typing: verdict.counts.typing,
        conversation_watchers: verdict.counts['conversation.watchers'],
        missing: verdict.missing,
        duplicates: verdict.duplicates,
        out_of_order: verdict.outOfOrder,
        unknown: verdict.unknown,
        stale_watchers: verdict.staleWatchers,
        failed_visitor_messages: failures.visitor,
        failed_replies: failures.reply,
        refused_typing: failures.typing,
        disconnects: agents.reduce((sum, a) => sum + a.disconnects, 0),
        node_warnings: problems.reduce((sum, p) => sum + p.count, 0),
      },
      baseline: {},
      settings: {
        scale: options.scale,
        agents: agentCount,
        visitors: visitorCount,
        watched_conversations: watchedCount,
        watched_each: WATCHED_EACH,
        nodes: NODES,
        load_s: round(loadSeconds, 1),
        setup_s: round(setupSeconds, 1),
        visitor_pause_s: `${VISITOR_PAUSE_MS[0] / 1000}-${VISITOR_PAUSE_MS[1] / 1000}`,
        agent_pause_s: `${AGENT_PAUSE_MS[0] / 1000}-${AGENT_PAUSE_MS[1] / 1000}`,
        load_average_start: loadAverageStart,
        load_average_end: round(loadavg()[0]!, 2),
      },
      notes: [
        'delivery: from just before the widget stream request (visitor) or the reply request (agent) is written to each watching socket receiving its message.created; cross_node: receipts on a node other than the one the message was sent to',
        'every conversation is held by an agent (taken over at setup), so visitor messages are stored and fanned out without an AI answer; visitors send to a random node, agents use their own node',
        'missing counts stored messages created after the agent\'s subscription was acknowledged that never reached it; messages of the subscription moment may or may not arrive, and are only checked for being real',
        ...verdict.examples.map((e) => `fault: ${e}`),
        ...(failures.firstError ? [`first failure: ${failures.firstError}`] : []),
        ...problems.flatMap((p, i) => p.first.map((what) => `node ${i + 1} logged: ${what}`)),
      ],
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
    };
  });
}
