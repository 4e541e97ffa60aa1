import { Gauge, type Registry } from 'prom-client';
import type { QueueDepths } from '../jobs/definitions';

/** This node's actors: counted per kind, and the shards it serves. */
export interface ActorCounts {
  activeActorsByKind(): Record<string, number>;
  ownedShards(): readonly number[];
}

/** This node's Socket.IO connections per kind (agent, widget). */
export interface SocketCounts {
  socketsByKind(): Record<string, number>;
}

export interface QueueCounts {
  depth(): Promise<QueueDepths>;
}

// A scrape must answer even while Redis is away: the queue series are left out instead.
const QUEUE_DEPTH_TIMEOUT_MS = 1000;

/*
 * Gauges of live state are read when Prometheus scrapes (prom-client's `collect`), never kept up to
 * date on the paths that change them: activations, connections and jobs pay nothing for being watched.
 * Each `reset()` first, so a kind that is gone does not linger with its last value.
 */

export function actorGauges(registry: Registry, actors: ActorCounts): void {
  new Gauge({
    name: 'parley_actors_active',
    help: 'Actors living on this node, by kind',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, count] of Object.entries(actors.activeActorsByKind())) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: 'parley_actor_shards_owned',
    help: 'Actor shards this node serves (of 1024)',
    registers: [registry],
    collect() {
      this.set(actors.ownedShards().length);
    },
  });
}

export function socketGauge(registry: Registry, sockets: SocketCounts): void {
  new Gauge({
    name: 'parley_realtime_sockets_open',
    help: 'Socket.IO connections open on this node, by kind (agent, widget)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, count] of Object.entries(sockets.socketsByKind())) this.set({ kind }, count);
    },
  });
}

export function queueGauge(registry: Registry, queues: QueueCounts): void {
  new Gauge({
    name: 'parley_job_queue_depth',
    help: 'Background jobs not finished, by kind and state (waiting, active, delayed)',
    labelNames: ['kind', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const depths = await withTimeout(queues.depth(), QUEUE_DEPTH_TIMEOUT_MS).catch(() => undefined);
      for (const [kind, depth] of Object.entries(depths ?? {})) {
        for (const [state, count] of Object.entries(depth)) this.set({ kind, state }, count);
      }
    },
  });
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
