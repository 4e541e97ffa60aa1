import { HANDOFF_MODEL } from '../../domain/conversations/escalation';
import * as moves from '../../domain/conversations/transitions';
import { Message } from '../../models';
import type { ConversationActor } from './actor';
import { move } from './stateMoves';

// One per conversation, under one of two keys: a reminder re-armed while its delivery runs (`idleCheck`)
// must not replace itself (BullMQ cannot remove a job being processed), so it takes the other key.
const IDLE_REMINDER = 'idle';
const IDLE_REMINDER_AGAIN = 'idle-again';

/**
 * When the reminder this activation armed is due (ms since the epoch), until its check ran. While it
 * stands, a newer answer arms nothing: the check finds that answer the last word and re-arms for its
 * quiet time. Per activation: a new owner (failover, passivation) knows of none and arms on its next
 * answer, replacing the one there may be.
 */
const armedUntil = new WeakMap<ConversationActor, number>();

/** How long past its due time an armed reminder is still trusted to come (delivery lag, retries) before an answer arms a new one. */
const DELIVERY_GRACE_MS = 60_000;

const quietMs = (actor: ConversationActor): number => actor.deps.ctx.config.aiIdleCloseMinutes * 60_000;

async function arm(actor: ConversationActor, answerId: number, delayMs: number, again: boolean): Promise<void> {
  await actor.env.remind({ type: 'idleCheck', answerId, ...(again && { again }) }, { key: again ? IDLE_REMINDER_AGAIN : IDLE_REMINDER, delayMs });
  armedUntil.set(actor, Date.now() + delayMs);
}

/**
 * The AI answered (`answerId`): unless the visitor writes again or a person steps in, the
 * conversation closes as resolved by the AI after the workspace's quiet time. A reminder, not a
 * timer, so it fires on whichever node owns the conversation then, after a failover too. Armed in
 * Redis once per quiet period: while one this activation armed is still to come, the answer is left
 * to its check (which re-arms for the last answer's quiet time), so the answers in between cost no
 * Redis round trip.
 */
export async function startIdleClock(actor: ConversationActor, answerId: number): Promise<void> {
  const due = armedUntil.get(actor);
  if (due !== undefined && due + DELIVERY_GRACE_MS > Date.now()) return;
  await arm(actor, answerId, quietMs(actor), false);
}

/**
 * The quiet time after `answerId` passed: closed only if the AI still holds it and its last line is
 * an AI answer whose quiet time has passed (`answerId` itself, or a later one answered while this
 * reminder was armed). A later answer still in its quiet time re-arms the reminder for what is left
 * of it; a visitor line or a person's after it leaves the conversation open, as before.
 */
export async function idleCheck(actor: ConversationActor, answerId: number, again = false): Promise<void> {
  armedUntil.delete(actor);
  const conversation = actor.record.row;
  if (!conversation || !moves.aiMayAnswer(conversation)) return;
  const last = await Message.findOne({ where: { conversationId: conversation.id }, order: [['id', 'DESC']], attributes: ['id', 'role', 'model', 'createdAt'] });
  if (!last) return;
  if (Number(last.id) !== answerId) {
    // Every AI answer but the handoff line started the clock (startIdleClock): a later one counts from its own time.
    if (last.role !== 'assistant' || last.model === HANDOFF_MODEL) return;
    const left = last.createdAt.getTime() + quietMs(actor) - Date.now();
    if (left > 0) return arm(actor, Number(last.id), left, !again);
  }
  await move(actor, moves.resolveByAi(conversation, new Date()), 'resolved', 'ai');
}

/**
 * Whether the AI answered the visitor's last message and nobody wrote after it (its handoff line to a
 * person does not count): a reset then counts as resolved by the AI.
 */
export async function aiHadLastWord(conversationId: number): Promise<boolean> {
  const last = await Message.findOne({ where: { conversationId }, order: [['id', 'DESC']], attributes: ['role', 'model'] });
  return last?.role === 'assistant' && last.model !== HANDOFF_MODEL;
}
