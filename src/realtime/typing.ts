import { z } from 'zod';
import { roleCan } from '../../config/roles';
import type { Actors } from '../actors/runtime/router';
import { User } from '../models';
import { conversationChannel } from './channels';
import type { RealtimeSocket } from './events';
import { split } from './subscriptions';

/** How often one socket's typing reaches the conversation: a start at most this often, a stop always once. */
export const TYPING_INTERVAL_MS = 2_000;
export const TYPING_PREVIEW_MAX = 120;

const widgetTyping = z.object({ typing: z.boolean(), preview: z.string().max(TYPING_PREVIEW_MAX).optional() });
const agentTyping = z.object({ conversation_id: z.uuid(), typing: z.boolean() });

/**
 * The socket's `typing` event, told to the conversation's actor (docs/api.md "Typing"). A widget types
 * in its own conversation, `{typing, preview?}`; an agent `{conversation_id, typing}` in a conversation
 * whose channel this socket joined (which the channel signature already limited to their workspace).
 */
export function handleTyping(socket: RealtimeSocket, actors: Actors): void {
  const throttle = new TypingThrottle();
  let agentName: Promise<string | undefined> | undefined;
  socket.on('typing', (...args) => {
    const { payload, ack } = split(args);
    const identity = socket.data;
    if (identity.kind === 'widget') {
      const parsed = widgetTyping.safeParse(payload);
      if (!parsed.success) return ack?.({ ok: false, message: `The typing payload must be {typing, preview?} with a preview of at most ${TYPING_PREVIEW_MAX} characters.` });
      const { typing, preview } = parsed.data;
      if (throttle.admits(identity.conversationId, typing)) {
        actors.tell('conversation', identity.conversationId, { type: 'typing', who: 'visitor', chatbotId: identity.chatbotId, typing, ...(preview && { preview }) });
      }
      return ack?.({ ok: true });
    }
    const parsed = agentTyping.safeParse(payload);
    if (!parsed.success) return ack?.({ ok: false, message: 'The typing payload must be {conversation_id, typing}.' });
    const { conversation_id: conversationId, typing } = parsed.data;
    if (!socket.rooms.has(conversationChannel(conversationId))) return ack?.({ ok: false, message: "Subscribe to the conversation's channel first." });
    agentName ??= handlerName(identity.userId);
    agentName
      .then((name) => {
        if (name === undefined) return ack?.({ ok: false, message: 'You may not handle conversations.' });
        if (throttle.admits(conversationId, typing)) {
          actors.tell('conversation', conversationId, { type: 'typing', who: 'agent', userId: identity.userId, companyId: identity.companyId, name, typing });
        }
        ack?.({ ok: true });
      })
      .catch(() => {
        agentName = undefined; // a database hiccup: the next event asks again
        ack?.({ ok: false, message: 'Typing could not be sent. Try again.' });
      });
  });
}

/** The agent's name as others see it, or undefined when their role may not handle conversations. */
async function handlerName(userId: number): Promise<string | undefined> {
  const user = await User.findByPk(userId, { attributes: ['id', 'name', 'role'] });
  return user && roleCan(user.role, 'handle-conversations') ? user.name : undefined;
}

// An agent socket types in a few conversations at a time; past this many the oldest memory is dropped.
const MAX_TRACKED = 100;

/**
 * One socket's typing, per conversation: a start passes at most once per interval; a stop passes
 * when the last signal that passed was a start. So a client flipping the state as fast as it can
 * still sends at most two signals per interval.
 */
export class TypingThrottle {
  private readonly last = new Map<string, { at: number; typing: boolean }>();

  constructor(
    private readonly intervalMs = TYPING_INTERVAL_MS,
    private readonly now = Date.now,
  ) {}

  admits(conversationId: string, typing: boolean): boolean {
    const at = this.now();
    const last = this.last.get(conversationId);
    const passes = last === undefined || (typing ? at - last.at >= this.intervalMs : last.typing);
    if (!passes) return false;
    if (!last && this.last.size >= MAX_TRACKED) this.last.clear();
    this.last.set(conversationId, { at, typing });
    return true;
  }
}
