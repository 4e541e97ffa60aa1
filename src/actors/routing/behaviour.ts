import { Conversation } from '../../models';
import { pickAgent, queuePosition, routableAgents, waitingQueue } from '../../domain/routing/queue';
import { routingOfCompany } from '../../domain/routing/settings';
import type { ActorDeps } from '../deps';
import type { ActivationEnv, ActorBehaviour } from '../runtime/behaviour';
import { QueuePositions } from './positions';
import './protocol';

const SWEEP_REMINDER = 'sweep';
/** While anyone waits, the router looks again this often even if nobody tells it anything. */
export const SWEEP_MS = 15_000;

/**
 * The workspace's router (id: the company id). It alone gives waiting conversations to agents, one
 * decision at a time, so two conversations never race for an agent's last seat; each assignment is
 * the conversation actor's own write (`autoAssign`), which refuses a conversation that is no longer
 * waiting and an agent who is full, so no conversation ever gets two agents. It keeps nothing in
 * memory that Postgres does not hold: the queue and the loads are read at each pass.
 */
export function routingBehaviour(deps: ActorDeps): ActorBehaviour<'routing'> {
  return {
    kind: 'routing',
    async activate(env) {
      const companyId = Number(env.id);
      // Whether this activation has a sweep scheduled: rescheduling on every pass would cost Redis round trips per handoff.
      const sweep = { armed: false };
      const positions = new QueuePositions(deps.realtime);
      const pump = () => route(env, deps, companyId, sweep, positions);
      return {
        handle: {
          pump,
          sweep: () => {
            sweep.armed = false;
            return pump();
          },
          async place({ conversationId }) {
            await pump();
            const conversation = await Conversation.findOne({ where: { publicId: conversationId, companyId } });
            return { queuePosition: conversation ? await queuePosition(conversation) : null };
          },
        },
      };
    },
  };
}

/** One pass: the queue in order, each to the best agent with room, until the queue or the seats run out. */
async function route(env: ActivationEnv<'routing'>, deps: ActorDeps, companyId: number, sweep: { armed: boolean }, positions: QueuePositions): Promise<{ assigned: number }> {
  const settings = await routingOfCompany(companyId);
  const queue = settings.mode === 'auto' ? await waitingQueue(companyId) : [];
  if (!queue.length) {
    positions.announce([]);
    if (sweep.armed) await env.cancelReminder(SWEEP_REMINDER);
    sweep.armed = false;
    return { assigned: 0 };
  }
  const connected = await deps.inboxPresence.connected(companyId);
  const agents = (await routableAgents(companyId, settings.capacity)).filter((agent) => agent.status === 'online' && connected.has(agent.id));
  let assigned = 0;
  // Those given an agent or no longer waiting in this pass; the rest still wait, in this order.
  const left = new Set<string>();
  try {
    for (const waiting of queue) {
      const agent = await assignOne(deps, waiting.publicId, waiting.passedOverUserId, agents, settings.accept_seconds);
      if (agent === 'nobody') break; // first come first served: nobody behind it goes first
      left.add(waiting.publicId);
      if (agent) assigned += 1;
    }
  } catch (error) {
    // A conversation actor out of reach (its node died): the head keeps its place; the sweep tries again.
    env.logger.warn({ err: error, companyId }, 'routing pass stopped');
  }
  positions.announce(queue.filter((waiting) => !left.has(waiting.publicId)).map((waiting) => waiting.publicId));
  if (assigned < queue.length && !sweep.armed) {
    await env.remind({ type: 'sweep' }, { key: SWEEP_REMINDER, delayMs: SWEEP_MS });
    sweep.armed = true;
  } else if (assigned === queue.length && sweep.armed) {
    await env.cancelReminder(SWEEP_REMINDER);
    sweep.armed = false;
  }
  return { assigned };
}

/** Offers one conversation to agents best first; 'nobody' when no agent has room, null when it no longer waits. */
async function assignOne(deps: ActorDeps, conversationId: string, passedOverUserId: number | null, agents: Array<ReturnType<typeof pickAgent> & object>, acceptSeconds: number) {
  for (let agent = pickAgent(agents, passedOverUserId); agent; agent = pickAgent(agents, passedOverUserId)) {
    const outcome = await deps.actors.ask('conversation', conversationId, { type: 'autoAssign', userId: agent.id, capacity: agent.capacity, acceptSeconds });
    if (outcome === 'gone') return null;
    if (outcome === 'assigned') {
      agent.load += 1;
      agent.lastAssignedAt = new Date();
      return agent;
    }
    // Full, away or suspended by now: not offered anything else in this pass.
    agent.load = agent.capacity;
  }
  return 'nobody' as const;
}
