import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/env';
import type { ActorDeps } from './actors/deps';
import { lateActors, parleyBehaviours } from './actors/kinds';
import type { AnyBehaviour } from './actors/runtime/host';
import { closePresenceWriter } from './actors/visitor/presenceWriter';
import { startActorSystem, type ActorSystem } from './actors/system';
import { createApp, listenerOf } from './app';
import { jobProcessors } from './boot/jobs';
import { closeContext, openContext } from './boot/openContext';
import type { AppContext } from './context';
import { ensureDemo, type Demo } from './domain/demo/ensureDemo';
import { requeuePendingSources } from './domain/knowledge/indexJob';
import { startDeliverySweep } from './domain/webhooks/sweep';
import { InProcessJobQueue } from './jobs/inProcessQueue';
import { createRealtime, type Realtime } from './realtime/server';
import { watcherStoreFor } from './realtime/watcherStore';
import { WatchPoll } from './realtime/watchPoll';
import { trackWatchers, type Watchers } from './realtime/watchers';
import { trackInboxPresence, type InboxPresence } from './realtime/inboxPresence';
import { kickRouter } from './actors/routing/kick';

export interface RunningWeb {
  ctx: AppContext;
  server: Server;
  port: number;
  url: string;
  /** Socket.IO on this node; its emitter reaches sockets on every node. */
  realtime: Realtime;
  /** Who has each conversation open, on any node. */
  watchers: Watchers;
  /** This node's share of the actors, and the router to all of them. */
  actors: ActorSystem;
  /** Graceful stop: refuse new connections, hand shards over, let in-flight requests finish (bounded), then close pools. */
  stop(): Promise<void>;
  /**
   * Resolves if this node must stop for good: while its database lock was down another web process
   * took the database (src/db/nodeLock.ts). The caller stops it and exits non-zero.
   */
  lost: Promise<Error>;
}

/** The start log's line on how to answer the demo chatbot as a person (its password is per data directory). */
function demoSignIn({ users, passwords }: Demo, appUrl: string): string {
  const agent = users.find((user) => passwords[user.email] && user.role === 'agent') ?? users.find((user) => passwords[user.email]);
  if (!agent) return `demo: this data directory does not know the demo users' passwords; \`npx parley seed demo\` sets and prints new ones`;
  return `demo: chat at ${appUrl}/ and answer as a person at ${appUrl}/inbox, signed in as ${agent.email} with password ${passwords[agent.email]} (\`npx parley seed demo\` prints every demo user)`;
}

export interface WebOptions {
  /** Actor kinds this node hosts beside Parley's own (tests add a probe kind). */
  behaviours?: (deps: ActorDeps) => readonly AnyBehaviour[];
  /** Idle time before an actor passivates (tests shorten it). */
  idleMs?: number;
}

const DRAIN_TIMEOUT_MS = 10_000;

/** Boot order: database and its lock (and migrations in embedded mode), Redis, realtime, actors, HTTP. Used by server.ts and by tests. */
export async function startWeb(config: Readonly<Config>, logger: Logger, options: WebOptions = {}): Promise<RunningWeb> {
  const ctx = await openContext(config, logger, { migrateEmbedded: true, nodeLock: true });
  const lost = new Promise<Error>((resolve) => ctx.nodeLock?.once('lost', resolve));
  // The app is registered before Socket.IO attaches: Engine.IO then answers its own path
  // (/socket.io/: polling, the client script) and hands every other request to the app, never both.
  let app: RequestListener | undefined;
  const server = createServer((req, res) => (app ? app(req, res) : res.writeHead(503).end()));
  let realtime: Realtime | undefined;
  let actors: ActorSystem | undefined;
  let watchers: Watchers | undefined;
  let watchPoll: WatchPoll | undefined;
  let presence: InboxPresence | undefined;
  let demo: Demo | undefined;
  let deliverySweep: { close(): Promise<void> } | undefined;
  try {
    // Actors (and sockets) message actors through the router, which exists only once the system has started.
    const router = lateActors(() => actors);
    realtime = await createRealtime(server, ctx, router);
    const watcherStore = watcherStoreFor(ctx.redis, config.redisPrefix);
    watchPoll = new WatchPoll((conversationIds) => watcherStore.watchedAmong(conversationIds));
    // Read by the router only once actors run; the presence tracker needs the started system's membership.
    const deps: ActorDeps = {
      ctx,
      realtime,
      actors: router,
      watches: watchPoll,
      inboxPresence: { connected: (companyId) => (presence ? presence.connected(companyId) : Promise.resolve(new Set())) },
    };
    actors = await startActorSystem(ctx, [...parleyBehaviours(deps), ...(options.behaviours?.(deps) ?? [])], { idleMs: options.idleMs });
    // Sockets arrive only once the server listens, below: by then this node is a member its entries can name.
    watchers = trackWatchers(realtime.io, watcherStore, actors, realtime, logger);
    const arrived = (companyId: number) => void kickRouter(router, companyId).catch((error: unknown) => logger.warn({ err: error }, 'the router could not be told'));
    presence = trackInboxPresence(realtime.io, watcherStoreFor(ctx.redis, `${config.redisPrefix}inbox-`), actors, arrived, logger);
    ctx.readiness.push(...actors.readiness);
    ctx.metrics.watchActors(actors);
    ctx.metrics.watchSockets(realtime);
    if (ctx.jobs instanceof InProcessJobQueue) {
      // Single-node mode: this process is also the worker.
      ctx.jobs.process(jobProcessors(ctx));
      await requeuePendingSources(ctx);
      deliverySweep = startDeliverySweep(ctx);
    }
    // What a newcomer runs (embedded mode) gets the demo: the page at `/` lets them chat with its chatbot at once.
    demo = config.demo ? await ensureDemo(ctx) : undefined;
    app = listenerOf(createApp(ctx, { actors, watchers, inboxPresence: presence, demo: demo?.chatbot }));
    server.listen(config.port);
    await once(server, 'listening');
  } catch (error) {
    server.close();
    await deliverySweep?.close();
    watchers?.close();
    presence?.close();
    await actors?.close();
    watchPoll?.close();
    await realtime?.close();
    await closeContext(ctx);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  logger.info({ port, node: actors.member, mode: config.singleNode ? 'single-node' : 'cluster', embeddedDatabase: config.embeddedDatabase }, 'listening');
  if (demo) logger.info(demoSignIn(demo, config.appUrl));

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // This node's sockets are about to go: the other nodes drop its watchers once it has left the cluster.
      watchers.close();
      presence?.close();
      // Sockets live as long as the client: disconnect them now (they reconnect to another node) so they do not hold up the drain.
      const realtimeClosed = realtime.close();
      // A keep-alive connection turns idle once its in-flight response is sent: close it then, not at its timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      // Finish this node's turns and release its leases first, so successors take over with no TTL-long gap.
      await actors.leave();
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      await actors.close();
      watchPoll?.close();
      await deliverySweep?.close();
      // Actors flushed their presence as they deactivated; this stops the writer and writes what is left.
      await closePresenceWriter(ctx);
      await realtimeClosed;
      await closeContext(ctx);
      logger.info('stopped');
    })());

  return { ctx, server, port, url: `http://127.0.0.1:${port}`, realtime, watchers, actors, stop, lost };
}
