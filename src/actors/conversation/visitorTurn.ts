import { UniqueConstraintError } from 'sequelize';
import { EXTRACTIVE_MODEL } from '../../ai/extractive';
import { generateReply, type GeneratedReply } from '../../ai/reply';
import { ProviderError } from '../../ai/providers';
import { historyBefore } from '../../domain/conversations/history';
import { verifiedDetails } from '../../domain/conversations/identity';
import { recommendProducts } from '../../domain/integrations/recommendations';
import { recordUsage } from '../../domain/usage/recordUsage';
import { notFound } from '../../errors';
import { Conversation, Message } from '../../models';
import { presentMessageEvent } from '../../presenters/message';
import { companyChannel, conversationChannel } from '../../realtime/channels';
import type { Turn } from '../runtime/behaviour';
import type { ConversationActor } from './actor';
import { DeltaBatcher } from './deltas';
import type { StoredAnswer, VisitorChunk, VisitorDetails, VisitorMessageInput, VisitorMessageReply } from './protocol';
import { aiMayAnswer, escalate, reopenByVisitor } from '../../domain/conversations/transitions';
import { asksForHuman, handoffLine } from '../../domain/conversations/escalation';
import { startSlaClock } from './stateTurns';

/** The `model` of the AI's handoff line: written by Parley, not by a provider. */
const HANDOFF_MODEL = 'handoff';

const PREVIEW = 200;
export const HELD_NOTE = 'A person has taken over this conversation; they will reply here.';
export const WAITING_NOTE = 'The visitor asked for a person; the AI stays silent until an agent replies or releases the conversation.';

/**
 * A visitor message: stored (and the caller told, `meta`) before anything else, then answered by the
 * AI only while the bot holds the conversation. A retry carrying the same client id finds the stored
 * message and, if it was answered, that answer: a visitor message is never stored or answered twice.
 */
export async function visitorMessage(actor: ConversationActor, input: VisitorMessageInput, turn: Turn<VisitorChunk>): Promise<VisitorMessageReply> {
  // A conversation that exists must be this visitor's; one that does not may only be created by the route that minted its id.
  const existing = actor.record.row && actor.conversation(input);
  if (!existing && !input.create) throw notFound('Conversation');
  const chatbot = await actor.chatbot(input.chatbotId);

  const retried = existing && input.clientId ? await Message.findOne({ where: { conversationId: existing.id, clientId: input.clientId, role: 'visitor' } }) : null;
  const stored = retried ?? (await store(actor, input));
  const conversation = actor.record.row!;
  if (!retried) {
    if (!existing) actor.push('chat_started', 0, stored.content);
    // While the AI answers, the visitor is looked after; once a person holds or is awaited, agents hear of each message.
    if (!aiMayAnswer(conversation)) actor.push('visitor_message', Number(stored.id), stored.content);
  }
  turn.emit({ event: 'meta', data: { conversation_id: conversation.publicId, visitor_message_id: Number(stored.id), status: conversation.status } });
  const base = { ...actor.view(), visitorMessageId: Number(stored.id) };

  // Only a retried message can have an answer already; one stored just now cannot.
  const answered = retried && (await answerTo(stored.id));
  if (answered) {
    turn.emit({ event: 'delta', data: { delta: answered.content } });
    return { ...base, outcome: 'answered', answer: answered };
  }
  if (!aiMayAnswer(conversation)) {
    return { ...base, outcome: 'held', note: conversation.handoffState === 'handoff_pending' ? WAITING_NOTE : HELD_NOTE };
  }
  if (asksForHuman(stored.content)) {
    const answer = await escalateToHuman(actor, stored);
    turn.emit({ event: 'delta', data: { delta: answer.content } });
    return { ...base, ...actor.view(), outcome: 'answered', answer };
  }

  // Looked up beside the answer, so a connected store costs the visitor no extra wait in the usual case.
  const products = recommendProducts(actor.deps.ctx, conversation.companyId, stored.content);
  let reply: GeneratedReply;
  const live = new DeltaBatcher((delta) =>
    actor.deps.realtime.emit(conversationChannel(conversation.publicId), 'message.delta', { conversation_id: conversation.publicId, reply_to: Number(stored.id), delta }, Number(conversation.seq)),
  );
  try {
    reply = await generateReply(actor.deps.ctx, {
      chatbot,
      question: stored.content,
      history: await historyBefore(conversation.id, stored.id),
      signal: turn.signal,
      onDelta: (delta) => {
        turn.emit({ event: 'delta', data: { delta } });
        live.push(delta);
      },
    });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { ...base, outcome: 'failed', error: { status: error.status, code: error.code, message: error.message } };
  } finally {
    live.flush();
  }
  const answer = await storeAnswer(actor, stored, reply);
  const recommended = await products;
  if (recommended.length) turn.emit({ event: 'recommendations', data: { products: recommended } });
  return { ...base, outcome: 'answered', answer };
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
    const isNew = !record.row;
    const reopening = reopenByVisitor(conversation);
    if (reopening) await unit.addEvent('reopened', 'visitor');
    const message = await unit.addMessage({ role: 'visitor', content: input.text, clientId: input.clientId ?? null });
    unit.change({
      ...reopening,
      ...visitorColumns(conversation, input),
      unreadCount: conversation.unreadCount + 1,
      messageCount: conversation.messageCount + 1,
      lastMessagePreview: input.text.slice(0, PREVIEW),
      lastMessageAt: message.createdAt,
    });
    const company = companyChannel(conversation.companyId);
    if (isNew) unit.emit('conversation.created', [company], () => actor.eventData());
    else if (reopening) unit.emit('conversation.updated', [conversationChannel(conversation.publicId), company], () => actor.eventData());
    unit.emit('message.created', [conversationChannel(conversation.publicId), company], presentMessageEvent(message, conversation.publicId));
    return message;
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

/**
 * The visitor asked the AI for a person: its last line says one is coming, and the conversation waits
 * for an agent exactly as after the handoff button. The line answers the visitor's message (so a
 * retry finds it), and no model is called, so no usage is recorded.
 */
async function escalateToHuman(actor: ConversationActor, question: Message): Promise<StoredAnswer> {
  const now = new Date();
  const answer = await actor.record.write(undefined, async (unit) => {
    const conversation = unit.conversation;
    await unit.addEvent('handoff_requested', 'ai');
    const content = handoffLine(actor.targetSeconds);
    const message = await unit.addMessage({ role: 'assistant', content, replyToId: question.id, model: HANDOFF_MODEL });
    unit.change({ ...escalate(conversation, now), messageCount: conversation.messageCount + 1, lastMessagePreview: content.slice(0, PREVIEW), lastMessageAt: message.createdAt });
    const channels = [conversationChannel(conversation.publicId), companyChannel(conversation.companyId)];
    unit.emit('message.created', channels, presentMessageEvent(message, conversation.publicId));
    unit.emit('conversation.updated', channels, () => actor.eventData());
    return storedAnswer(message);
  });
  await startSlaClock(actor, now);
  actor.push('handoff_requested', now.getTime(), 'asked the AI for a person.');
  return answer;
}

async function storeAnswer(actor: ConversationActor, question: Message, reply: GeneratedReply): Promise<StoredAnswer> {
  try {
    return await actor.record.write(undefined, async (unit) => {
      const conversation = unit.conversation;
      const message = await unit.addMessage({
        role: 'assistant',
        content: reply.text,
        replyToId: question.id,
        provider: reply.provider,
        model: reply.model,
        tokensIn: reply.tokensIn,
        tokensOut: reply.tokensOut,
        sources: reply.sources,
      });
      await recordUsage(
        { companyId: conversation.companyId, chatbotId: conversation.chatbotId, conversationId: conversation.id, kind: 'reply', provider: reply.provider, model: reply.model, tokensIn: reply.tokensIn, tokensOut: reply.tokensOut },
        unit.transaction,
      );
      unit.change({ messageCount: conversation.messageCount + 1, lastMessagePreview: reply.text.slice(0, PREVIEW), lastMessageAt: message.createdAt });
      unit.emit('message.created', [conversationChannel(conversation.publicId), companyChannel(conversation.companyId)], presentMessageEvent(message, conversation.publicId));
      return storedAnswer(message);
    });
  } catch (error) {
    // Another owner of this conversation answered the same message first (the unique index says so): use theirs.
    const theirs = error instanceof UniqueConstraintError ? await answerTo(question.id) : undefined;
    if (theirs) return theirs;
    throw error;
  }
}

async function answerTo(messageId: number): Promise<StoredAnswer | undefined> {
  const answer = await Message.findOne({ where: { replyToId: messageId, role: 'assistant' } });
  return answer ? storedAnswer(answer) : undefined;
}

function storedAnswer(message: Message): StoredAnswer {
  return {
    id: Number(message.id),
    content: message.content,
    model: message.model ?? '',
    provider: message.provider ?? '',
    tokensIn: message.tokensIn ?? 0,
    tokensOut: message.tokensOut ?? 0,
    source: message.model === EXTRACTIVE_MODEL ? 'knowledge' : message.model === HANDOFF_MODEL ? 'handoff' : 'ai',
    sources: message.sources ?? [],
  };
}
