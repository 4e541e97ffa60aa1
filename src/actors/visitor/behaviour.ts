import type { ActorDeps } from '../deps';
import { notifyAgents } from '../notifyAgents';
import type { ActorBehaviour } from '../runtime/behaviour';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { loadVisitor } from '../../domain/visitors/records';
import { VISITOR_SEQ, VisitorActor, type VisitorServices } from './actor';
import { presenceWriterOf } from './presenceWriter';
import { parseVisitorActorId } from './protocol';

/** A heartbeat is a few milliseconds of work; one stuck far longer should free the widget's request. */
const TURN_DEADLINE_MS = 10_000;

/**
 * The visitor actor kind (id `${companyId}:${visitorKey}`). Activation loads the `visitors` row,
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
    async activate(env) {
      const { companyId, visitorKey } = parseVisitorActorId(env.id);
      const stored = await loadVisitor(services.sequelize, companyId, visitorKey);
      const pending = services.writer.pending(companyId, visitorKey);
      const fresher = pending && (pending.lastSeenAt ?? 0) >= (stored.lastSeenAt ?? 0) ? pending : stored;
      const actor = new VisitorActor(env, services, fresher);
      return {
        handle: {
          heartbeat: (message) => actor.heartbeat(message),
          held: () => actor.held(),
          presence: () => actor.presence(),
          blockChanged: ({ chatbotId }) => actor.blockChanged(chatbotId),
          inviteConversation: ({ chatbotId }) => actor.inviteConversation(chatbotId),
          depart: ({ lastSeen }) => actor.depart(lastSeen),
        },
        deactivate: () => actor.deactivate(),
      };
    },
  };
}
