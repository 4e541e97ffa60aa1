import { visitorBlocked } from '../../domain/conversations/abuse';
import { rateAnswer as storeRating, type AnswerRating } from '../../domain/conversations/answerRatings';
import { notFound } from '../../errors';
import type { ConversationActor } from './actor';

// The visitor's verdict on an AI answer. Kept apart from visitorTurns.ts (the message path): a rating
// is a record about the conversation, written in a turn like every other, but it never answers.

/** Thumbs up or down on one AI answer of the visitor's own conversation; agents see it (`conversation.updated`). */
export async function rateAnswer(actor: ConversationActor, owner: { chatbotId: number; visitorKey: string }, rating: AnswerRating): Promise<{ ok: true }> {
  const conversation = actor.conversation(owner);
  if (conversation.blocked) throw visitorBlocked();
  await actor.record.write(undefined, async (unit) => {
    if (!(await storeRating(unit.conversation, rating, unit.transaction))) throw notFound('Message');
    actor.updated(unit);
  });
  return { ok: true };
}
