import type { EventSource } from '../../models';
import { presentConversationAssigned } from '../../presenters/realtimeEvents';
import { userChannel } from '../../realtime/channels';
import type { ConversationActor } from './actor';
import type { ConversationView } from './protocol';
import type { Changes } from '../../domain/conversations/transitions';
import type { Unit } from './record';

const SLA_REMINDER = 'sla';

/**
 * Applies one state move (if it applies) with its event, and tells everyone watching. The moves
 * themselves are the pure functions of domain/conversations/transitions.ts; who asks for which is
 * in visitorTurns.ts and agentTurns.ts.
 */
export async function move(actor: ConversationActor, changes: Changes | undefined, event: string | null, source: EventSource, userId: number | null = null): Promise<ConversationView> {
  if (changes) {
    await actor.record.write(undefined, async (unit) => {
      if (event) await unit.addEvent(event, source, userId);
      announceHolder(unit, changes, userId);
      unit.change(changes);
      actor.updated(unit);
    });
  }
  return actor.view();
}

/**
 * A write that gives the conversation to an agent tells them on their own channel
 * (`conversation.assigned`), so every device they are signed in on learns it is theirs; `by` is who
 * did it (themselves on a takeover, reply or invite; null for the system). Call it before
 * `unit.change`: the row still names the previous holder until the write commits.
 */
export function announceHolder(unit: Unit, changes: Changes | undefined, by: number | null): void {
  const holder = changes?.assignedUserId;
  if (holder == null || holder === unit.conversation.assignedUserId) return;
  unit.emit('conversation.assigned', [userChannel(holder)], () => presentConversationAssigned(unit.conversation.publicId, by));
}

/** A wait for a person began at `requestedAt`: check back when the workspace's target has passed. */
export const startSlaClock = (actor: ConversationActor, requestedAt: Date): Promise<void> =>
  actor.env.remind({ type: 'slaCheck', requestedAt: requestedAt.toISOString() }, { key: SLA_REMINDER, delayMs: actor.targetSeconds * 1000 });

/** Nobody waits any more (a person holds it, or it closed): the pending check is dropped. */
export const stopSlaClock = (actor: ConversationActor): Promise<void> => actor.env.cancelReminder(SLA_REMINDER);

/** Still waiting when the target passed: the breach is recorded once. */
export async function slaCheck(actor: ConversationActor, requestedAt: string): Promise<void> {
  const conversation = actor.record.row;
  if (!conversation || conversation.handoffState !== 'handoff_pending' || conversation.slaBreachedAt) return;
  if (conversation.handoffRequestedAt?.toISOString() !== requestedAt) return;
  await move(actor, { slaBreachedAt: new Date() }, 'sla_breach', 'system');
  actor.push('sla_breach', requestedAt, 'has waited past the first-response target.');
}
