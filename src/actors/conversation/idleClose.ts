import { HANDOFF_MODEL } from '../../domain/conversations/escalation';
import * as moves from '../../domain/conversations/transitions';
import { Message } from '../../models';
import type { ConversationActor } from './actor';
import { move } from './stateMoves';

// One per conversation: a newer answer re-arms it, so only the last answer's quiet time counts.
const IDLE_REMINDER = 'idle';

/**
 * The AI answered (`answerId`): unless the visitor writes again or a person steps in, the
 * conversation closes as resolved by the AI after the workspace's quiet time. A reminder, not a
 * timer, so it fires on whichever node owns the conversation then, after a failover too.
 */
export const startIdleClock = (actor: ConversationActor, answerId: number): Promise<void> =>
  actor.env.remind({ type: 'idleCheck', answerId }, { key: IDLE_REMINDER, delayMs: actor.deps.ctx.config.aiIdleCloseMinutes * 60_000 });

/** The quiet time passed: closed only if the AI still holds it and its answer is still the last line. */
export async function idleCheck(actor: ConversationActor, answerId: number): Promise<void> {
  const conversation = actor.record.row;
  if (!conversation || !moves.aiMayAnswer(conversation)) return;
  const last = await Message.findOne({ where: { conversationId: conversation.id }, order: [['id', 'DESC']], attributes: ['id'] });
  if (Number(last?.id) !== answerId) return;
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
