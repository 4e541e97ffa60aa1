import type { EventSource } from '../../models';
import { companyChannel, conversationChannel } from '../../realtime/channels';
import type { ConversationActor } from './actor';
import type { ConversationView } from './protocol';
import * as moves from '../../domain/conversations/transitions';

const SLA_REMINDER = 'sla';

/** Applies one state move (if it applies) with its event, and tells everyone watching. */
async function move(actor: ConversationActor, changes: moves.Changes | undefined, event: string | null, source: EventSource, userId: number | null = null): Promise<ConversationView> {
  const conversation = actor.conversation();
  if (changes) {
    await actor.record.write(undefined, async (unit) => {
      if (event) await unit.addEvent(event, source, userId);
      unit.change(changes);
      unit.emit('conversation.updated', [conversationChannel(conversation.publicId), companyChannel(conversation.companyId)], () => actor.eventData());
    });
  }
  return actor.view();
}

/** The visitor asks for a person: the AI goes quiet, the wait starts, an SLA check is set for the target. */
export async function requestHandoff(actor: ConversationActor, owner: { chatbotId: number; visitorKey: string }): Promise<ConversationView> {
  const conversation = actor.conversation(owner);
  // A closed conversation first reopens: asking for a person is the visitor coming back.
  if (conversation.status === 'closed') await move(actor, moves.reopenByVisitor(conversation), 'reopened', 'visitor');
  const now = new Date();
  const changes = moves.requestHuman(actor.conversation(), now);
  const view = await move(actor, changes, 'handoff_requested', 'visitor');
  if (changes) {
    await startSlaClock(actor, now);
    actor.push('handoff_requested', now.getTime(), 'asked to talk to a person.');
  }
  return view;
}

/** A wait for a person began at `requestedAt`: check back when the workspace's target has passed. */
export const startSlaClock = (actor: ConversationActor, requestedAt: Date): Promise<void> =>
  actor.env.remind({ type: 'slaCheck', requestedAt: requestedAt.toISOString() }, { key: SLA_REMINDER, delayMs: actor.targetSeconds * 1000 });

/** Still waiting when the target passed: the breach is recorded once. */
export async function slaCheck(actor: ConversationActor, requestedAt: string): Promise<void> {
  const conversation = actor.record.row;
  if (!conversation || conversation.handoffState !== 'handoff_pending' || conversation.slaBreachedAt) return;
  if (conversation.handoffRequestedAt?.toISOString() !== requestedAt) return;
  await move(actor, { slaBreachedAt: new Date() }, 'sla_breach', 'system');
  actor.push('sla_breach', requestedAt, 'has waited past the first-response target.');
}

export async function takeover(actor: ConversationActor, userId: number): Promise<ConversationView> {
  const conversation = actor.conversation();
  const view = await move(actor, moves.takeOver(conversation, userId), 'human_connected', 'agent', userId);
  await actor.env.cancelReminder(SLA_REMINDER);
  return view;
}

export const release = (actor: ConversationActor, userId: number) => move(actor, moves.release(actor.conversation()), 'released', 'agent', userId);

export async function resolve(actor: ConversationActor, userId: number): Promise<ConversationView> {
  const view = await move(actor, moves.resolve(actor.conversation(), new Date()), 'resolved', 'agent', userId);
  await actor.env.cancelReminder(SLA_REMINDER);
  return view;
}

export const reopen = (actor: ConversationActor, userId: number) => move(actor, moves.reopenByAgent(actor.conversation()), 'reopened', 'agent', userId);

/** The widget's "new chat": idempotent; only the visitor who opened the conversation may close it. */
export async function reset(actor: ConversationActor, owner: { chatbotId: number; visitorKey: string }): Promise<{ closed: true; conversationId: string }> {
  const conversation = actor.conversation(owner);
  // Not an agent's resolution, so no `resolved` event: the conversation simply ends (docs/api.md "Conversations").
  await move(actor, moves.closeByVisitor(conversation, new Date()), null, 'visitor');
  await actor.env.cancelReminder(SLA_REMINDER);
  return { closed: true, conversationId: conversation.publicId };
}
