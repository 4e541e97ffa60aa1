import { UniqueConstraintError } from 'sequelize';
import { setConversationTag } from '../../domain/catalogue/conversationTags';
import * as moves from '../../domain/conversations/transitions';
import { notFound } from '../../errors';
import { Conversation, Message, Note } from '../../models';
import { presentConversationRead } from '../../presenters/realtimeEvents';
import { conversationChannel, userChannel } from '../../realtime/channels';
import { visitorActorId } from '../visitor/protocol';
import type { ConversationActor } from './actor';
import type { ConversationView, InviteInput, SentMessage, StoredNote } from './protocol';
import type { Unit } from './record';
import { armFollowUp } from './followUp';
import { routeNext } from './routing';
import { announceHolder, move, stopSlaClock } from './stateMoves';

// What agents do in a conversation: hold it, answer, invite, annotate, read.

const sent = (message: Message): SentMessage => ({ id: Number(message.id), content: message.content, at: message.createdAt.toISOString() });

/** The visitor hears of a held line on their next heartbeat, or at once when their widget is connected. */
const tellVisitor = (actor: ConversationActor, conversation: Conversation) =>
  actor.deps.actors.tell('visitor', visitorActorId(conversation.companyId, conversation.visitorKey), { type: 'held', conversationId: conversation.publicId });

/** The agent holds the conversation from this write on (event `human_connected` when it changes hands). */
async function holdFor(actor: ConversationActor, unit: Unit, userId: number): Promise<void> {
  const changes = moves.takeOver(unit.conversation, userId);
  if (!changes) return;
  await unit.addEvent('human_connected', 'agent', userId);
  announceHolder(unit, changes, userId);
  unit.change(changes);
  actor.updated(unit);
}

export async function takeover(actor: ConversationActor, userId: number): Promise<ConversationView> {
  const view = await move(actor, moves.takeOver(actor.conversation(), userId), 'human_connected', 'agent', userId);
  await stopSlaClock(actor);
  return view;
}

export async function release(actor: ConversationActor, userId: number): Promise<ConversationView> {
  const changes = moves.release(actor.conversation());
  const view = await move(actor, changes, 'released', 'agent', userId);
  if (changes) await routeNext(actor); // a seat came free
  return view;
}

export async function resolve(actor: ConversationActor, userId: number): Promise<ConversationView> {
  const held = actor.conversation().status === 'agent';
  const view = await move(actor, moves.resolve(actor.conversation(), new Date()), 'resolved', 'agent', userId);
  await stopSlaClock(actor);
  // A seat came free.
  if (held) await routeNext(actor);
  return view;
}

export const reopen = (actor: ConversationActor, userId: number) => move(actor, moves.reopenByAgent(actor.conversation()), 'reopened', 'agent', userId);

/**
 * An agent's reply takes the conversation over and is held for the visitor (delivered live, and on
 * the next heartbeat): one write, so the takeover is never saved without its line or the line
 * without the takeover. The same client id twice stores it once and answers `duplicate`; the unique
 * index holds that even against an earlier owner of this conversation.
 */
export async function agentReply(actor: ConversationActor, userId: number, text: string, clientId?: string): Promise<ConversationView & { message: SentMessage; duplicate: boolean }> {
  const conversation = actor.conversation();
  const earlier = async () => (clientId ? await Message.findOne({ where: { conversationId: conversation.id, clientId } }) : null);
  const repeat = await earlier();
  if (repeat) return { ...actor.view(), message: sent(repeat), duplicate: true };
  try {
    const message = await actor.record.write(undefined, async (unit) => {
      await holdFor(actor, unit, userId);
      return unit.addLine({ role: 'agent', content: text, authorUserId: userId, clientId: clientId ?? null }, 'clear');
    });
    await stopSlaClock(actor);
    tellVisitor(actor, conversation);
    await armFollowUp(actor, Number(message.id));
    return { ...actor.view(), message: sent(message), duplicate: false };
  } catch (error) {
    const theirs = error instanceof UniqueConstraintError ? await earlier() : null;
    if (!theirs) throw error;
    return { ...actor.view(), message: sent(theirs), duplicate: true };
  }
}

/**
 * An agent starts a chat with a visitor who is browsing: the conversation (new, or the visitor's open
 * one, as their visitor actor chose) is held by that agent from the first line, and the line waits
 * for the visitor's next heartbeat unless their widget is connected. One write: either all of it is
 * saved or none of it.
 */
export async function invite(actor: ConversationActor, input: InviteInput): Promise<ConversationView & { created: boolean; message: SentMessage }> {
  const existing = actor.record.row && actor.conversation({ chatbotId: input.chatbotId, visitorKey: input.visitorKey });
  await actor.chatbot(input.chatbotId);
  const create = existing
    ? undefined
    : () =>
        Conversation.build({
          publicId: actor.id,
          companyId: actor.companyId,
          chatbotId: input.chatbotId,
          visitorKey: input.visitorKey,
          channel: 'widget',
          routedBy: 'invite',
        });
  const message = await actor.record.write(create, async (unit) => {
    await unit.addEvent('invited', 'agent', input.userId);
    const changes = moves.takeOver(unit.conversation, input.userId);
    announceHolder(unit, changes, input.userId);
    unit.change(changes);
    if (existing) actor.updated(unit);
    else actor.created(unit);
    return unit.addLine({ role: 'agent', content: input.text, authorUserId: input.userId });
  });
  tellVisitor(actor, actor.conversation());
  await armFollowUp(actor, Number(message.id));
  return { ...actor.view(), created: !existing, message: sent(message) };
}

/** An internal note: agents see it in the thread; the visitor never does. */
export async function note(actor: ConversationActor, userId: number, body: string): Promise<StoredNote> {
  const conversation = actor.conversation();
  const stored = await actor.record.write(undefined, async (unit) => {
    const created = await Note.create({ companyId: conversation.companyId, conversationId: conversation.id, userId, body }, { transaction: unit.transaction });
    // Agents refetch the thread; the inbox row does not change.
    actor.updated(unit, [conversationChannel(conversation.publicId)]);
    return created;
  });
  return { id: Number(stored.id), body: stored.body, userId: stored.userId ?? null, at: stored.createdAt.toISOString() };
}

/**
 * Attaches or detaches a catalogue tag (the route checked it is the workspace's). Only a real change
 * writes its event (`tag_added` / `tag_removed`), so a repeat is harmless.
 */
export async function tag(actor: ConversationActor, userId: number, tagId: number, attach: boolean): Promise<{ changed: boolean }> {
  const conversation = actor.conversation();
  return actor.record.write(undefined, async (unit) => {
    const changed = await setConversationTag(conversation, tagId, attach ? { attach, source: 'agent' } : { attach }, unit.transaction);
    if (!changed) return { changed: false };
    await unit.addEvent(attach ? 'tag_added' : 'tag_removed', 'agent', userId, { tag_id: tagId });
    actor.updated(unit);
    return { changed: true };
  });
}

/**
 * An agent opened the thread: unread goes to zero for every agent's inbox, and the reader's other
 * devices hear `read` on their own channel so they clear the badge too.
 */
export async function markRead(actor: ConversationActor, userId: number): Promise<{ unreadCount: number }> {
  const conversation = actor.record.row;
  if (!conversation) throw notFound('Conversation');
  if (conversation.unreadCount > 0) {
    await actor.record.write(undefined, async (unit) => {
      unit.change({ unreadCount: 0 });
      actor.updated(unit);
      unit.emit('read', [userChannel(userId)], () => presentConversationRead(conversation.publicId));
    });
  }
  return { unreadCount: 0 };
}
