import { verifiedDetails } from '../../domain/conversations/identity';
import * as moves from '../../domain/conversations/transitions';
import { notFound } from '../../errors';
import { Conversation, Message } from '../../models';
import { companyChannel } from '../../realtime/channels';
import type { Turn } from '../runtime/behaviour';
import type { ConversationActor } from './actor';
import { answerTo, answerVisitor } from './aiAnswer';
import type { ConversationView, VisitorChunk, VisitorDetails, VisitorMessageInput, VisitorMessageReply } from './protocol';
import { move, startSlaClock, stopSlaClock } from './stateMoves';

// What the visitor does in their conversation: write, ask for a person, start a new chat.

export const HELD_NOTE = 'A person has taken over this conversation; they will reply here.';
export const WAITING_NOTE = 'The visitor asked for a person; the AI stays silent until an agent replies or releases the conversation.';

type Owner = { chatbotId: number; visitorKey: string };

/**
 * A visitor message: stored (and the caller told, `meta`) before anything else, then answered by the
 * AI only while the bot holds the conversation. A retry carrying the same client id finds the stored
 * message and, if it was answered, that answer: a visitor message is never stored or answered twice.
 */
export async function visitorMessage(actor: ConversationActor, input: VisitorMessageInput, turn: Turn<VisitorChunk>): Promise<VisitorMessageReply> {
  // A conversation that exists must be this visitor's; one that does not may only be created by the route that minted its id.
  const existing = actor.record.row && actor.conversation(input);
  if (!existing && !input.create) throw notFound('Conversation');
  await actor.chatbot(input.chatbotId);

  const retried = existing && input.clientId ? await Message.findOne({ where: { conversationId: existing.id, clientId: input.clientId, role: 'visitor' } }) : null;
  const stored = retried ?? (await store(actor, input));
  const conversation = actor.conversation();
  if (!retried) {
    if (!existing) actor.push('chat_started', 0, stored.content);
    // While the AI answers, the visitor is looked after; once a person holds or is awaited, agents hear of each message.
    if (!moves.aiMayAnswer(conversation)) actor.push('visitor_message', Number(stored.id), stored.content);
  }
  turn.emit({ event: 'meta', data: { conversation_id: conversation.publicId, visitor_message_id: Number(stored.id), status: conversation.status } });
  const base = { ...actor.view(), visitorMessageId: Number(stored.id) };

  // Only a retried message can have an answer already; one stored just now cannot.
  const answered = retried && (await answerTo(stored.id));
  if (answered) {
    turn.emit({ event: 'delta', data: { delta: answered.content } });
    return { ...base, outcome: 'answered', answer: answered };
  }
  if (!moves.aiMayAnswer(conversation)) {
    return { ...base, outcome: 'held', note: conversation.handoffState === 'handoff_pending' ? WAITING_NOTE : HELD_NOTE };
  }
  return answerVisitor(actor, stored, base, turn);
}

/** The visitor asks for a person: the AI goes quiet, the wait starts, an SLA check is set for the target. */
export async function requestHandoff(actor: ConversationActor, owner: Owner): Promise<ConversationView> {
  const conversation = actor.conversation(owner);
  // A closed conversation first reopens: asking for a person is the visitor coming back.
  if (conversation.status === 'closed') await move(actor, moves.reopenByVisitor(conversation), 'reopened', 'visitor');
  const now = new Date();
  const changes = moves.requestHuman(actor.conversation(), now);
  const view = await move(actor, changes, 'handoff_requested', 'visitor');
  if (changes) {
    await startSlaClock(actor, now);
    actor.push('handoff_requested', now.getTime(), 'asked to talk to a person.');
  }
  return view;
}

/** The widget's "new chat": idempotent; only the visitor who opened the conversation may close it. */
export async function reset(actor: ConversationActor, owner: Owner): Promise<{ closed: true; conversationId: string }> {
  const conversation = actor.conversation(owner);
  // Not an agent's resolution, so no `resolved` event: the conversation simply ends (docs/api.md "Conversations").
  await move(actor, moves.closeByVisitor(conversation, new Date()), null, 'visitor');
  await stopSlaClock(actor);
  return { closed: true, conversationId: conversation.publicId };
}

function store(actor: ConversationActor, input: VisitorMessageInput): Promise<Message> {
  const { record, id } = actor;
  const create = record.row
    ? undefined
    : () =>
        Conversation.build({
          publicId: id,
          companyId: actor.companyId,
          chatbotId: input.chatbotId,
          visitorKey: input.visitorKey,
          channel: input.channel,
        });
  return record.write(create, async (unit) => {
    const conversation = unit.conversation;
    const reopening = moves.reopenByVisitor(conversation);
    if (reopening) await unit.addEvent('reopened', 'visitor');
    if (!record.row) unit.emit('conversation.created', [companyChannel(conversation.companyId)], () => actor.eventData());
    else if (reopening) actor.updated(unit);
    unit.change({ ...reopening, ...visitorColumns(conversation, input) });
    return unit.addLine({ role: 'visitor', content: input.text, clientId: input.clientId ?? null }, 'add');
  });
}

/**
 * What the visitor told us about themselves, merged over what the conversation already knew. A claim
 * of the verified identity (this message's token, else the one stored) beats a typed answer: anyone
 * can type someone else's email, and agents are shown that email's orders and payments.
 */
function visitorColumns(conversation: Conversation, input: VisitorMessageInput) {
  const details = { ...input.visitor, ...verifiedDetails(input.identity ?? conversation.identity) };
  return {
    ...(details.name && { visitorName: details.name }),
    ...(details.email && { visitorEmail: details.email }),
    ...(details.phone && { visitorPhone: details.phone }),
    ...(input.identity && { identity: input.identity }),
    ...(input.locale && { locale: input.locale }),
    ...(input.visitor && { prechat: prechatAnswers(conversation, input.visitor) }),
    ...(input.meta && { meta: { ...conversation.meta, ...input.meta } }),
  };
}

/** The pre-chat form's answers as the agent app lists them, merged over earlier ones by field. */
function prechatAnswers(conversation: Conversation, visitor: VisitorDetails) {
  const answers = new Map(conversation.prechat.map((entry) => [entry.field, entry.value]));
  for (const [field, value] of Object.entries(visitor)) if (typeof value === 'string' && value.trim()) answers.set(field, value.trim());
  return [...answers].map(([field, value]) => ({ field, value }));
}
