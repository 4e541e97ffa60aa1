import type { ActorBehaviour } from '../../src/actors/runtime/behaviour';

/** Actor kinds that exist only for the benchmarks (declared like any kind, by declaration merging). */
declare module '../../src/actors/runtime/protocol' {
  interface ActorProtocols {
    benchCounter: {
      count: { reply: number };
    };
    benchConversation: {
      touch: { reply: number };
      visitorMessage: { message: { text: string }; reply: number };
      assign: { message: { userId: number | null }; reply: void };
      summary: { reply: { status: string; messageCount: number; lastMessagePreview: string | null } };
    };
  }
}

/** The smallest possible actor: one synchronous handler, no state load, so a turn is pure runtime cost. */
export const counterBehaviour: ActorBehaviour<'benchCounter'> = {
  kind: 'benchCounter',
  async activate() {
    let n = 0;
    return { handle: { count: () => ++n } };
  },
};

/**
 * Roughly what a conversation actor keeps between turns (the scalar columns of models/Conversation.ts
 * that its turns read or bump, plus the last few messages for AI context), without the Postgres load.
 */
export interface ConversationState {
  conversationId: number;
  publicId: string;
  companyId: number;
  chatbotId: number;
  visitorKey: string;
  assignedUserId: number | null;
  status: string;
  handoffState: string;
  channel: string;
  locale: string;
  unreadCount: number;
  messageCount: number;
  seq: number;
  version: number;
  lastMessageAt: number;
  recent: string[];
}

const RECENT = 5;

/**
 * A new flat copy of a string, as the pg driver returns one per row: 50,000 actors never share
 * interned literals, and template literals do not leave rope (cons) strings that real rows lack.
 */
const fresh = (text: string) => Buffer.from(text, 'latin1').toString('latin1');

/** The state of conversation `id`: built from the id, so no two actors share a string. */
export function conversationState(id: number): ConversationState {
  return {
    conversationId: id,
    publicId: fresh(`c_${id.toString(36).padStart(8, '0')}${(id * 2654435761 >>> 0).toString(36)}`),
    companyId: 1 + (id % 97),
    chatbotId: 1 + (id % 13),
    visitorKey: fresh(`v_${(id * 40503 >>> 0).toString(16).padStart(12, '0')}`),
    assignedUserId: id % 3 === 0 ? 7 : null,
    status: fresh(['bot', 'agent', 'closed'][id % 3]!),
    handoffState: fresh(['bot_active', 'handoff_pending', 'human_connected'][id % 3]!),
    channel: fresh('web'),
    locale: fresh(`en-${id % 2 ? 'GB' : 'US'}`),
    unreadCount: id % 4,
    messageCount: 10 + (id % 20),
    seq: 40 + (id % 50),
    version: 3,
    lastMessageAt: Date.now(),
    recent: Array.from({ length: RECENT }, (_, i) => fresh(`message ${i + 1} in conversation ${id}: where is my order?`)),
  };
}

export function conversationBehaviour(): ActorBehaviour<'benchConversation'> {
  return {
    kind: 'benchConversation',
    async activate(env) {
      const state = conversationState(Number(env.id));
      return {
        handle: {
          touch: () => state.messageCount,
          visitorMessage: ({ text }) => {
            state.recent.push(text);
            if (state.recent.length > RECENT) state.recent.shift();
            state.unreadCount++;
            state.lastMessageAt = Date.now();
            return ++state.messageCount;
          },
          assign: ({ userId }) => {
            state.assignedUserId = userId;
            state.handoffState = userId === null ? 'bot_active' : 'human_connected';
          },
          summary: () => ({ status: state.status, messageCount: state.messageCount, lastMessagePreview: state.recent.at(-1) ?? null }),
        },
      };
    },
  };
}
