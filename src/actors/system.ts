import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AppContext } from '../context';
import type { ReadinessCheck } from '../readiness';
import { connectRedis } from '../redis';
import { ShardFences } from './cluster/fences';
import { LocalLeases, ShardLeases, type LeaseStore } from './cluster/leases';
import { LocalMembership, RedisMembership, type Membership } from './cluster/membership';
import { Presence } from './cluster/presence';
import { ShardManager } from './cluster/shardManager';
import { clusterTiming, type ClusterTiming } from './cluster/timing';
import { BullReminders } from './runtime/bullReminders';
import { ActorHost, type AnyBehaviour } from './runtime/host';
import { TimerReminders, type ReminderDelivery, type Reminders } from './runtime/reminders';
import { ActorRouter, type Actors } from './runtime/router';
import { RedisTransport, type Transport } from './runtime/transport';

export interface ActorSystemOptions {
  /** Send-only client (a worker, a test or benchmark driver): joins no shards, hosts no actors. */
  observer?: boolean;
  idleMs?: number;
}

/** The actor API plus this node's part in the cluster. */
export interface ActorSystem extends Actors {
  /** `nodeId:incarnation`: this process's member id (a restart is a new incarnation). */
  readonly member: string;
  /** Who is alive: the nodes whose sockets still count (src/realtime/watchers.ts drops the rest). */
  readonly membership: Pick<Membership, 'isLive' | 'live' | 'on' | 'off'>;
  /** `cluster` (a live member), and on nodes that host actors `shards` (serving its share of them). */
  readonly readiness: readonly ReadinessCheck[];
  ownedShards(): number[];
  activeActors(): number;
  /** Live actors on this node per kind (every hosted kind, 0 included; none for an observer). */
  activeActorsByKind(): Record<string, number>;
  /** Graceful part one: leave the cluster, finish turns (bounded), release every lease. */
  leave(): Promise<void>;
  /** Part two, once HTTP has drained: stop routing and close connections. */
  close(): Promise<void>;
}

const TURN_DEADLINE_MS = 60_000;
const IDLE_MS = 5 * 60_000;
const DRAIN_MS = 10_000;

/**
 * Assembles the runtime for this process. Cluster mode (Redis): heartbeating membership, Redis leases,
 * pub/sub transport, BullMQ reminders. Single-node mode: the same host, router and shard manager over
 * in-process membership and leases, with timers for reminders.
 */
export async function startActorSystem(ctx: AppContext, behaviours: readonly AnyBehaviour[], options: ActorSystemOptions = {}): Promise<ActorSystem> {
  const { config } = ctx;
  const logger = ctx.logger.child({ component: 'actors' });
  const timing = clusterTiming(config.cluster.heartbeatMs, config.cluster.leaseTtlMs);
  const member = `${options.observer ? 'client-' : ''}${config.nodeId}:${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const cluster = ctx.redis ? await clusterParts(ctx, ctx.redis, member, timing, logger, options.observer) : localParts(member);
  const fences = new ShardFences(ctx.db.sequelize, timing.leaseTtlMs);

  let router: ActorRouter;
  const deliverReminder: ReminderDelivery = async (kind, id, message, deliveryId) => {
    await router.ask(kind as never, id, message as never, { idempotencyKey: `reminder:${deliveryId}` });
  };
  const reminders: Reminders | undefined = options.observer
    ? undefined
    : ctx.redis
      ? new BullReminders(config.redisUrl!, config.redisPrefix, deliverReminder, logger)
      : new TimerReminders(deliverReminder, logger);

  let manager: ShardManager | undefined;
  let host: ActorHost | undefined;
  if (reminders) {
    host = new ActorHost({
      node: member,
      behaviours,
      servingEpoch: (shard) => manager!.servingEpoch(shard),
      fencedWrite: (shard, epoch, work) => fences.write(shard, epoch, work),
      onStaleShard: (shard) => manager!.lost(shard),
      reminders,
      logger,
      turnDeadlineMs: TURN_DEADLINE_MS,
      idleMs: options.idleMs ?? IDLE_MS,
    });
    const actorHost = host;
    manager = new ShardManager(cluster.membership, cluster.leases, fences, timing, {
      drain: (shard, boundMs) => actorHost.drainShard(shard, boundMs),
      drop: (shard) => actorHost.dropShard(shard),
    }, logger);
  }
  router = new ActorRouter({ self: member, host, leases: cluster.leases, membership: cluster.membership, logger });
  if (cluster.transport) router.connect(await cluster.transport((envelope) => router.receive(envelope)));
  await cluster.membership.start();
  await manager?.start();

  let left: Promise<void> | undefined;
  const leave = () =>
    (left ??= (async () => {
      await cluster.membership.stop();
      await manager?.stop(DRAIN_MS);
      await host?.stop(DRAIN_MS);
      await reminders?.close();
    })());

  return {
    ask: (kind, id, message, askOptions) => router.ask(kind, id, message, askOptions),
    tell: (kind, id, message, askOptions) => router.tell(kind, id, message, askOptions),
    stream: (kind, id, message, askOptions) => router.stream(kind, id, message, askOptions),
    member,
    membership: cluster.membership,
    readiness: [
      {
        name: 'cluster',
        check: async () => {
          if (!options.observer && !cluster.membership.isLive(member)) throw new Error('not a live member of the cluster');
        },
      },
      ...(manager ? [shardsReadiness(manager, timing)] : []),
    ],
    ownedShards: () => manager?.ownedShards() ?? [],
    activeActors: () => host?.size ?? 0,
    activeActorsByKind: () => host?.countByKind() ?? {},
    leave,
    async close() {
      await leave();
      router.stop();
      await cluster.close();
    },
  };
}

/** Fails once this node has served less than its share of the shards for longer than a move takes. */
function shardsReadiness(manager: ShardManager, timing: ClusterTiming): ReadinessCheck {
  return {
    name: 'shards',
    check: async () => {
      const { desired, served, shortForMs } = manager.share();
      if (shortForMs <= timing.shortfallGraceMs) return;
      const seconds = Math.round(shortForMs / 1000);
      throw new Error(desired ? `serves ${served} of its ${desired} shards for ${seconds} s` : `has not taken its shards for ${seconds} s`);
    },
  };
}

interface ClusterParts {
  membership: Membership;
  leases: LeaseStore;
  /** Opens the pub/sub channel once the router can receive. */
  transport?: (receive: (envelope: Parameters<ActorRouter['receive']>[0]) => void) => Promise<Transport>;
  close(): Promise<void>;
}

async function clusterParts(ctx: AppContext, redis: Redis, member: string, timing: ClusterTiming, logger: Logger, observer = false): Promise<ClusterParts> {
  const prefix = ctx.config.redisPrefix;
  const [pub, sub] = await Promise.all([connectRedis(ctx.config.redisUrl!, logger, 'actors-pub'), connectRedis(ctx.config.redisUrl!, logger, 'actors-sub')]);
  // Observers own no shards, so nobody needs to learn of their death quickly.
  const presence = observer ? undefined : new Presence(ctx.config.redisUrl!, prefix, member, timing, logger);
  let transport: Transport | undefined;
  return {
    membership: new RedisMembership(redis, prefix, member, timing, logger, presence),
    leases: new ShardLeases(redis, prefix, member, timing.leaseTtlMs, timing.goneGraceMs + 2 * timing.leaseTtlMs),
    transport: async (receive) => (transport = await RedisTransport.open(pub, sub, prefix, member, receive, logger)),
    close: async () => {
      // Last: until this node's leases are released (leave), its presence keeps the others from taking them.
      await presence?.close();
      if (transport) await transport.close();
      else await Promise.all([pub.quit(), sub.quit()]);
    },
  };
}

function localParts(member: string): ClusterParts {
  return { membership: new LocalMembership(member), leases: new LocalLeases(member), close: async () => undefined };
}
