import { Op } from 'sequelize';
import { claimSeat } from '../../domain/routing/queue';
import * as moves from '../../domain/conversations/transitions';
import { Message } from '../../models';
import { kickRouter } from '../routing/kick';
import type { ConversationActor } from './actor';
import { announceHolder, stopSlaClock } from './stateMoves';

// The conversation's side of auto-assignment (docs/routing.md): the router decides who, this actor
// writes it, so the state machine stays in one place and one conversation never gets two agents.

const ACCEPT_REMINDER = 'accept';

export type AssignOutcome = 'assigned' | 'full' | 'gone';

/**
 * The router gives this waiting conversation to `userId`: status `agent`, `human_connected`, event
 * `assigned` (source system), `conversation.assigned` on the agent's channel; then the accept timer.
 * `gone` when it no longer waits (taken, released, closed meanwhile); `full` when the agent has no seat
 * left now (counted under a lock on the agent's row, in this write).
 */
export async function autoAssign(actor: ConversationActor, userId: number, capacity: number, acceptSeconds: number): Promise<AssignOutcome> {
  const conversation = actor.record.row;
  if (!conversation || conversation.handoffState !== 'handoff_pending' || conversation.assignedUserId !== null || conversation.status === 'closed') return 'gone';
  const now = new Date();
  const outcome = await actor.record.write(undefined, async (unit) => {
    if (!(await claimSeat(userId, capacity, now, unit.transaction))) return 'full' as const;
    const changes = { ...moves.takeOver(unit.conversation, userId), routedAt: now, passedOverUserId: null };
    await unit.addEvent('assigned', 'system', userId);
    announceHolder(unit, changes, null);
    unit.change(changes);
    actor.updated(unit);
    return 'assigned' as const;
  });
  if (outcome !== 'assigned') return outcome;
  // The agent's own push (their other devices, a hidden inbox tab): the router gave them this one.
  actor.push('conversation_assigned', now.getTime(), actor.conversation().lastMessagePreview ?? '');
  await stopSlaClock(actor);
  await actor.env.remind({ type: 'acceptCheck', userId, routedAt: now.toISOString() }, { key: ACCEPT_REMINDER, delayMs: acceptSeconds * 1000 });
  return outcome;
}

/**
 * The accept time passed: an agent the router chose who has sent nothing since loses the conversation.
 * It waits again at its old place (its request time is kept, so it is next), the agent is passed over
 * on the next try, and the router is told. A reminder, so a failover does not lose it.
 */
export async function acceptCheck(actor: ConversationActor, userId: number, routedAt: string): Promise<void> {
  const conversation = actor.record.row;
  if (!conversation || conversation.status !== 'agent' || conversation.assignedUserId !== userId || conversation.routedAt?.toISOString() !== routedAt) return;
  const answered = await Message.findOne({
    where: { conversationId: conversation.id, role: 'agent', authorUserId: userId, createdAt: { [Op.gte]: conversation.routedAt } },
    attributes: ['id'],
  });
  if (answered) return;
  await actor.record.write(undefined, async (unit) => {
    await unit.addEvent('reassigned', 'system', userId, { from_user_id: userId });
    unit.change({ status: 'bot', handoffState: 'handoff_pending', assignedUserId: null, routedAt: null, passedOverUserId: userId });
    actor.updated(unit);
  });
  await routeNext(actor);
}

/**
 * A conversation waits, or an agent's seat came free: in auto mode the router hears of it. Never
 * fails the turn that called it (its write has committed): a router that missed this tell finds the
 * change at its next pass or sweep.
 */
export async function routeNext(actor: ConversationActor): Promise<void> {
  try {
    await kickRouter(actor.deps.actors, actor.companyId);
  } catch (error) {
    actor.env.logger.warn({ err: error, conversation: actor.id }, 'the router could not be told');
  }
}
