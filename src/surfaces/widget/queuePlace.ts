import type { ConversationView } from '../../actors/conversation/protocol';
import { viewOf } from '../../actors/conversation/view';
import type { Actors } from '../../actors/runtime/router';
import '../../actors/routing/protocol';
import { queuePosition } from '../../domain/routing/queue';
import { Conversation, type Company } from '../../models';
import { presentConversationView } from '../../presenters/widget';

/**
 * After a handoff in auto mode: the router routes at once and says where the conversation stands. The
 * view is read again, since the router may just have given it to an agent. When the router cannot be
 * reached (its node is moving), the place is read from Postgres and the router's sweep routes it later.
 */
export async function placeInQueue(actors: Actors, company: Company, conversationId: string): Promise<{ queuePosition: number | null; view?: ConversationView }> {
  let placed: number | null | undefined;
  try {
    placed = (await actors.ask('routing', String(company.id), { type: 'place', conversationId })).queuePosition;
  } catch {
    actors.tell('routing', String(company.id), { type: 'pump' });
  }
  const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
  if (!conversation) return { queuePosition: null };
  return { queuePosition: placed === undefined ? await queuePosition(conversation) : placed, view: viewOf(conversation, company.firstResponseTargetSeconds) };
}

/** Where the conversation stands, read from Postgres (nothing was asked of its actor). */
export async function currentView(company: Company, conversationId: string) {
  const conversation = await Conversation.findOne({ where: { publicId: conversationId } });
  if (!conversation) return {};
  return presentConversationView(viewOf(conversation, company.firstResponseTargetSeconds));
}
