import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/env';
import type { AnyBehaviour } from './actors/runtime/host';
import { startActorSystem, type ActorSystem } from './actors/system';
import { createApp } from './app';
import { closeContext, openContext, type AppContext } from './context';
import { InProcessJobQueue } from './jobs/inProcessQueue';
import { jobProcessors, requeuePendingSources } from './jobs/processors';
import type { RealtimeEmitter } from './realtime/emitter';
import { createRealtime, type Realtime } from './realtime/server';

export interface RunningWeb {
  ctx: AppContext;
  server: Server;
  port: number;
  url: string;
  /** Socket.IO on this node; its emitter reaches sockets on every node. */
  realtime: Realtime;
  /** This node's share of the actors, and the router to all of them. */
  actors: ActorSystem;
  /** Graceful stop: refuse new connections, hand shards over, let in-flight requests finish (bounded), then close pools. */
  stop(): Promise<void>;
}

/** What actor behaviours are built with: the process services and the realtime emitter. */
export interface ActorDeps {
  ctx: AppContext;
  realtime: RealtimeEmitter;
}

export interface WebOptions {
  /** The actor kinds this node hosts (tests add their own probe kind). */
  behaviours?: (deps: ActorDeps) => readonly AnyBehaviour[];
  /** Idle time before an actor passivates (tests shorten it). */
  idleMs?: number;
}

const DRAIN_TIMEOUT_MS = 10_000;

/** Boot order: database (and migrations in embedded mode), Redis, realtime, actors, HTTP. Used by server.ts and by tests. */
export async function startWeb(config: Readonly<Config>, logger: Logger, options: WebOptions = {}): Promise<RunningWeb> {
  const ctx = await openContext(config, logger, { migrateEmbedded: true });
  const server = createServer();
  let realtime: Realtime | undefined;
  let actors: ActorSystem | undefined;
  try {
    realtime = await createRealtime(server, ctx);
    actors = await startActorSystem(ctx, options.behaviours?.({ ctx, realtime }) ?? [], { idleMs: options.idleMs });
    ctx.readiness.push(actors.readiness);
    if (ctx.jobs instanceof InProcessJobQueue) {
      // Single-node mode: this process is also the worker.
      ctx.jobs.process(jobProcessors(ctx));
      await requeuePendingSources(ctx);
    }
    server.on('request', createApp(ctx));
    server.listen(config.port);
    await once(server, 'listening');
  } catch (error) {
    server.close();
    await actors?.close();
    await realtime?.close();
    await closeContext(ctx);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  logger.info({ port, node: actors.member, mode: config.singleNode ? 'single-node' : 'cluster', embeddedDatabase: config.embeddedDatabase }, 'listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
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
      await realtimeClosed;
      await closeContext(ctx);
      logger.info('stopped');
    })());

  return { ctx, server, port, url: `http://127.0.0.1:${port}`, realtime, actors, stop };
}
