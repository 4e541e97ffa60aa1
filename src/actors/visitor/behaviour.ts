import type { ActorDeps } from '../deps';
import { notifyAgents } from '../notifyAgents';
import type { ActorBehaviour, ActorInstance, Handlers } from '../runtime/behaviour';
import { departureMs, pollSecondsOf } from '../../domain/visitors/presence';
import { readArrival } from '../../domain/visitors/arrivalRead';
import { loadVisitor, type VisitorRecord } from '../../domain/visitors/records';
import { VISITOR_SEQ, VisitorActor, type VisitorServices } from './actor';
import { presenceWriterOf } from './presenceWriter';
import { parseVisitorActorId, type HeartbeatInput } from './protocol';

/** A heartbeat is a few milliseconds of work; one stuck far longer should free the widget's request. */
const TURN_DEADLINE_MS = 10_000;

/**
 * The runtime's view of one visitor actor: its handlers are methods on the prototype, so a live
 * visitor costs one small object here rather than seven closures.
 */
class VisitorInstance implements ActorInstance<'visitor'>, Handlers<'visitor'> {
  readonly handle: Handlers<'visitor'> = this;

  constructor(private readonly actor: VisitorActor) {}

  heartbeat(message: HeartbeatInput) {
    return this.actor.heartbeat(message);
  }

  held() {
    this.actor.held();
  }

  presence() {
    return this.actor.presence();
  }

  blockChanged({ chatbotId }: { chatbotId: number }) {
    this.actor.blockChanged(chatbotId);
  }

  inviteConversation({ chatbotId }: { chatbotId: number }) {
    return this.actor.inviteConversation(chatbotId);
  }

  depart({ lastSeen }: { lastSeen: number }) {
    this.actor.depart(lastSeen);
  }

  deactivate() {
    return this.actor.deactivate();
  }
}

/**
 * A visitor on the site beats every `poll_seconds`, so its actor is never idle this long; one who
 * left is announced offline two silent intervals after the last beat (a turn), and the actor
 * passivates two intervals after that: a node keeps the visitors on its sites now, not every
 * visitor it has seen (docs/performance.md, "Memory per known visitor"). Passivating a visitor who
 * has left needs no departure reminder.
 */
export const visitorIdleMs = (pollSeconds: number): number => departureMs(pollSeconds);

/**
 * The visitor actor kind (id `${companyId}:${visitorKey}`). Activation loads the `visitors` row (woken
 * by a heartbeat, with that beat's first-beat facts in the same statement: src/domain/visitors/arrivalRead.ts),
 * or what this process's PresenceWriter has not written yet (an actor passivated a moment ago may
 * still be flushing): state lives in memory, Postgres is the record.
 */
export function visitorBehaviour(deps: ActorDeps): ActorBehaviour<'visitor'> {
  const { ctx } = deps;
  const services: VisitorServices = {
    sequelize: ctx.db.sequelize,
    realtime: deps.realtime,
    actors: deps.actors,
    writer: presenceWriterOf(ctx),
    pollSeconds: pollSecondsOf(ctx.config),
    raise: (event) => notifyAgents(deps, event, VISITOR_SEQ),
  };
  return {
    kind: 'visitor',
    turnDeadlineMs: TURN_DEADLINE_MS,
    idleMs: visitorIdleMs(services.pollSeconds),
    async activate(env, first) {
      const { companyId, visitorKey } = parseVisitorActorId(env.id);
      const fresher = (stored: VisitorRecord) => {
        const pending = services.writer.pending(companyId, visitorKey);
        return pending && (pending.lastSeenAt ?? 0) >= (stored.lastSeenAt ?? 0) ? pending : stored;
      };
      if (first.type !== 'heartbeat') return new VisitorInstance(new VisitorActor(env, services, fresher(await loadVisitor(services.sequelize, companyId, visitorKey))));
      // Woken by a heartbeat: its turn's first read (the facts) comes with the row, in one statement.
      const named = first.conversationId?.toLowerCase();
      const { record, facts } = await readArrival(services.sequelize, { companyId, chatbotId: first.chatbotId, visitorKey }, named);
      return new VisitorInstance(new VisitorActor(env, services, fresher(record), { chatbotId: first.chatbotId, named, facts }));
    },
  };
}
