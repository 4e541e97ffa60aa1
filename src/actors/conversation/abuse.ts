import { floodRefused, floodWaitMs, latestConversationBlocked, STRIKES_TO_BLOCK, visitorBlocked, type RecentLine } from '../../domain/conversations/abuse';
import type { VisitorOnChatbot } from '../../domain/conversations/visitorConversations';
import type { Conversation, EventSource } from '../../models';
import { visitorActorId } from '../visitor/protocol';
import type { ConversationActor } from './actor';
import type { Unit } from './record';

// Blocking a visitor: by an agent, or by the flood rule's third strike. A blocked visitor's
// messages, handoff requests and resets are refused before anything of theirs is written.

/** The visitor's heartbeats learn of a change of the block from here, not from a query per beat. */
const tellVisitorOfBlock = (actor: ConversationActor, conversation: Conversation) =>
  actor.deps.actors.tell('visitor', visitorActorId(conversation.companyId, conversation.visitorKey), { type: 'blockChanged', chatbotId: conversation.chatbotId });

/** Sets `blocked` with its event (`blocked` / `unblocked`); unblocking also forgives the strikes. */
async function setBlocked(unit: Unit, blocked: boolean, source: EventSource, userId: number | null): Promise<void> {
  unit.change({ blocked, ...(!blocked && { abuseStrikes: 0 }) });
  await unit.addEvent(blocked ? 'blocked' : 'unblocked', source, userId);
}

/** An agent blocks or unblocks the conversation's visitor; a repeat writes nothing. */
export async function block(actor: ConversationActor, userId: number, blocked: boolean): Promise<{ blocked: boolean }> {
  const conversation = actor.conversation();
  if (conversation.blocked !== blocked) {
    await actor.record.write(undefined, async (unit) => {
      await setBlocked(unit, blocked, 'agent', userId);
      actor.updated(unit);
    });
    tellVisitorOfBlock(actor, conversation);
  }
  return { blocked };
}

/**
 * Refuses a visitor's write while they are blocked: 403 for a blocked conversation, and for a new
 * one when their latest conversation with the chatbot is blocked (`latestConversationBlocked`).
 */
export async function refuseBlocked(existing: Conversation | null, visitor: VisitorOnChatbot): Promise<void> {
  const blocked = existing ? existing.blocked : await latestConversationBlocked(visitor);
  if (blocked) throw visitorBlocked();
}

/**
 * The flood rule, before a visitor message is stored: over the limit, the message is refused (429
 * `flooding`) and counts a strike, written with the conversation; the third strike blocks it (event
 * `blocked`, source system).
 */
export async function refuseFlood(actor: ConversationActor, conversation: Conversation, newestLines: readonly RecentLine[]): Promise<void> {
  const wait = floodWaitMs(newestLines);
  if (wait === null) return;
  const strikes = conversation.abuseStrikes + 1;
  await actor.record.write(undefined, async (unit) => {
    unit.change({ abuseStrikes: strikes });
    if (strikes >= STRIKES_TO_BLOCK) await setBlocked(unit, true, 'system', null);
    actor.updated(unit);
  });
  if (strikes >= STRIKES_TO_BLOCK) tellVisitorOfBlock(actor, conversation);
  throw floodRefused(wait);
}
