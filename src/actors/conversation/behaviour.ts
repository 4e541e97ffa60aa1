import type { ActorDeps } from '../deps';
import type { ActorBehaviour } from '../runtime/behaviour';
import { Conversation } from '../../models';
import { ConversationActor } from './actor';
import { ConversationRecord } from './record';
import { block } from './abuse';
import * as records from './agentRecords';
import * as agent from './agentTurns';
import { idleCheck } from './idleClose';
import { acceptCheck, autoAssign } from './routing';
import { followUpCheck } from './followUp';
import { continueByLink, leaveEmail } from './offlineVisitor';
import { slaCheck } from './stateMoves';
import { TypingState } from './typing';
import * as visitor from './visitorTurns';
import { rateAnswer } from './visitorFeedback';
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
      const actor = new ConversationActor(env, new ConversationRecord(row, env, deps.realtime, { jobs: deps.ctx.jobs, logger: deps.ctx.logger }), deps);
      if (row) await actor.chatbot();
      const typing = new TypingState(actor);
      return {
        deactivate: () => typing.endAll(),
        handle: {
          visitorMessage: (message, turn) => visitor.visitorMessage(actor, message, turn),
          requestHandoff: (owner) => visitor.requestHandoff(actor, owner),
          reset: (owner) => visitor.reset(actor, owner),
          continueOnDevice: (claim) => visitor.continueOnDevice(actor, claim),
          takeover: ({ userId }) => agent.takeover(actor, userId),
          agentReply: ({ userId, text, clientId }) => agent.agentReply(actor, userId, text, clientId),
          release: ({ userId }) => agent.release(actor, userId),
          resolve: ({ userId }) => agent.resolve(actor, userId),
          reopen: ({ userId }) => agent.reopen(actor, userId),
          invite: (input) => agent.invite(actor, input),
          note: ({ userId, body }) => agent.note(actor, userId, body),
          tag: ({ userId, tagId, attach }) => agent.tag(actor, userId, tagId, attach),
          markRead: ({ userId }) => agent.markRead(actor, userId),
          block: ({ userId, blocked }) => block(actor, userId, blocked),
          setRevenue: (change) => records.setRevenue(actor, change),
          saveLead: () => records.saveLead(actor),
          saveSummary: (answer) => records.saveSummary(actor, answer),
          replaceSuggestedTags: ({ suggestions }) => records.replaceSuggestedTags(actor, suggestions),
          keepSuggestion: ({ userId, suggestion, announce }) => records.keepSuggestion(actor, userId, suggestion, announce),
          suggestionOutcome: ({ suggestionId, outcome }) => records.suggestionOutcome(actor, suggestionId, outcome),
          rateAnswer: ({ chatbotId, visitorKey, ...rating }) => rateAnswer(actor, { chatbotId, visitorKey }, rating),
          slaCheck: ({ requestedAt }) => slaCheck(actor, requestedAt),
          idleCheck: ({ answerId, again }) => idleCheck(actor, answerId, again),
          typing: (signal) => typing.signal(signal),
          autoAssign: ({ userId, capacity, acceptSeconds }) => autoAssign(actor, userId, capacity, acceptSeconds),
          acceptCheck: ({ userId, routedAt }) => acceptCheck(actor, userId, routedAt),
          followUpCheck: () => followUpCheck(actor),
          continueByLink: ({ chatbotId, visitorKey, followupId }) => continueByLink(actor, { chatbotId, visitorKey }, followupId),
          leaveEmail: ({ chatbotId, visitorKey, email }) => leaveEmail(actor, { chatbotId, visitorKey }, email),
        },
      };
    },
  };
}
