import type { ActorDeps } from '../deps';
import type { ActorBehaviour } from '../runtime/behaviour';
import { Conversation } from '../../models';
import { ConversationActor } from './actor';
import { ConversationRecord } from './record';
import * as agentTurns from './agentTurns';
import * as turns from './stateTurns';
import { visitorMessage } from './visitorTurn';
import './protocol';

// An AI reply may stream for a while (the provider's own timeout applies between chunks).
const TURN_DEADLINE_MS = 3 * 60_000;

/** How long a caller waits for a visitor message's answer, streaming included. */
export const ANSWER_TIMEOUT_MS = TURN_DEADLINE_MS;

/**
 * The conversation actor (id: the conversation's public uuid): every state change of a conversation
 * happens in one of its turns, one at a time, written under the shard's fencing epoch.
 */
export function conversationBehaviour(deps: ActorDeps): ActorBehaviour<'conversation'> {
  return {
    kind: 'conversation',
    turnDeadlineMs: TURN_DEADLINE_MS,
    async activate(env) {
      const row = await Conversation.findOne({ where: { publicId: env.id } });
      const actor = new ConversationActor(env, new ConversationRecord(row, env, deps.realtime), deps);
      if (row) await actor.chatbot();
      return {
        handle: {
          visitorMessage: (message, turn) => visitorMessage(actor, message, turn),
          requestHandoff: (owner) => turns.requestHandoff(actor, owner),
          reset: (owner) => turns.reset(actor, owner),
          takeover: ({ userId }) => turns.takeover(actor, userId),
          agentReply: ({ userId, text, clientId }) => agentTurns.agentReply(actor, userId, text, clientId),
          release: ({ userId }) => turns.release(actor, userId),
          resolve: ({ userId }) => turns.resolve(actor, userId),
          reopen: ({ userId }) => turns.reopen(actor, userId),
          slaCheck: ({ requestedAt }) => turns.slaCheck(actor, requestedAt),
          invite: (input) => agentTurns.invite(actor, input),
          note: ({ userId, body }) => agentTurns.note(actor, userId, body),
          tag: ({ userId, tagId, attach }) => agentTurns.tag(actor, userId, tagId, attach),
          markRead: () => agentTurns.markRead(actor),
        },
      };
    },
  };
}
