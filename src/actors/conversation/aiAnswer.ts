import { UniqueConstraintError } from 'sequelize';
import { generateReply, type GeneratedReply, type PreparedReply } from '../../ai/reply';
import type { ChatMessage } from '../../ai/providers/types';
import { ProviderError } from '../../ai/providers';
import type { Branding } from '../../domain/chatbots/branding';
import { asksForHuman, HANDOFF_MODEL, handoffLine } from '../../domain/conversations/escalation';
import { historyBefore } from '../../domain/conversations/history';
import { escalate } from '../../domain/conversations/transitions';
import { recommendProducts, recommendsFor } from '../../domain/integrations/recommendations';
import { EXTRACTIVE_MODEL } from '../../ai/extractive';
import { usageRow } from '../../domain/usage/recordUsage';
import { takeMessageId } from './turnRead';
import type { NewLine } from './lineStatement';
import { Message, type Conversation } from '../../models';
import { presentMessageDelta } from '../../presenters/realtimeEvents';
import { conversationChannel } from '../../realtime/channels';
import type { Turn } from '../runtime/behaviour';
import type { ConversationActor } from './actor';
import { DeltaBatcher } from './deltas';
import type { StoredAnswer, VisitorChunk, VisitorMessageReply } from './protocol';
import { startIdleClock } from './idleClose';
import { routeNext } from './routing';
import { startSlaClock } from './stateMoves';

type Answered = Extract<VisitorMessageReply, { outcome: 'answered' | 'failed' }>;
/** A visitor turn's reply before its outcome: the conversation's view and the visitor message's id. */
export type Base = Omit<VisitorMessageReply, 'outcome' | 'answer' | 'note' | 'error'>;

/**
 * The AI's part of a visitor turn, once the bot may answer: the handoff line when the visitor asked
 * for a person, else a reply streamed from the model (to the caller, and batched to agents watching)
 * and stored as the answer to `question`.
 */
export async function answerVisitor(
  actor: ConversationActor,
  question: Message,
  base: Base,
  turn: Turn<VisitorChunk>,
  settings: Branding,
): Promise<Answered> {
  if (asksForHuman(question.content)) {
    const answer = await escalateToHuman(actor, question);
    turn.emit({ event: 'delta', data: { delta: answer.content } });
    return { ...base, ...actor.view(), outcome: 'answered', answer };
  }
  return streamAnswer(actor, question, base, turn, settings);
}

/**
 * How an answer may start before its question is stored (`answerWhileStoring`): the question's
 * write, the deltas held until it committed and `meta` went out, and the reads begun early.
 */
export interface Early {
  /** The question's write and `meta`: resolves with the turn's base once the write committed, `meta` went out and the gate opened; rejects when the write failed. */
  stored: Promise<Base>;
  /** Deltas wait here until `stored`; then they pass at once, in order. */
  gate: HeldDeltas;
  history: ChatMessage[];
  prepared?: Promise<PreparedReply>;
  /** The visitor's language tag as the write leaves it. */
  language: string | null;
  /** The answer's id, taken by the turn's read (`readForTurn`). */
  answerId: number | null;
  /** A new conversation's row as its first message's write leaves it: not the record's until that write committed. */
  conversation?: Conversation;
}

/** An answer's deltas, held while its question is still being written. */
export class HeldDeltas {
  private held: Array<() => void> | undefined = [];

  pass(send: () => void): void {
    if (this.held) this.held.push(send);
    else send();
  }

  /** The question is stored and `meta` sent: what waited goes out, and the rest as it comes. */
  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const send of held) send();
  }
}

/**
 * A reply streamed from the model (to the caller, and batched to agents watching) and stored as the
 * answer to `question`. With `early`, the provider call runs while the question is written: nothing
 * reaches the caller or agents before that write committed, and a failed write fails the turn as
 * before the call began (the caller aborts the call); only a stored question is ever answered.
 */
async function streamAnswer(actor: ConversationActor, question: Message, base: Base | Promise<Base>, turn: Turn<VisitorChunk>, { recommend_mode: mode }: Branding, early?: Early): Promise<Answered> {
  const conversation = early?.conversation ?? actor.conversation();

  // Looked up beside the answer, so a connected store costs the visitor no extra wait in the usual case.
  const products = recommendsFor(mode, question.content) ? recommendProducts(actor.deps.ctx, conversation.companyId, question.content) : Promise.resolve([]);
  let reply: GeneratedReply;
  const live = new DeltaBatcher((delta) =>
    actor.deps.realtime.emit(conversationChannel(conversation.publicId), 'message.delta', presentMessageDelta(conversation.publicId, Number(question.id), delta), Number(conversation.seq)),
  );
  // Only agents with the conversation open receive `message.delta`: with nobody watching, nothing is published.
  const watching = actor.deps.watches?.follow(conversation.publicId);
  const send = (delta: string) => {
    turn.emit({ event: 'delta', data: { delta } });
    if (watching?.open ?? true) live.push(delta);
  };
  try {
    reply = await generateReply(actor.deps.ctx, {
      chatbot: await actor.chatbot(conversation.chatbotId),
      question: question.content,
      history: early?.history ?? historyBefore(conversation.id, question.id),
      language: early ? early.language : conversation.locale,
      prepared: early?.prepared,
      signal: turn.signal,
      onDelta: early ? (delta) => early.gate.pass(() => send(delta)) : send,
    });
  } catch (error) {
    // A question whose write failed is not answered, nor reported failed: the write's error is the turn's.
    const stored = await base;
    if (!(error instanceof ProviderError)) throw error;
    return { ...stored, outcome: 'failed', error: { status: error.status, code: error.code, message: error.message } };
  } finally {
    live.flush();
    watching?.stop(); // the call is over; deltas still held for the question's write use the last answer
  }
  const stored = await base;
  live.flush(); // deltas held until the question was stored went to agents after the call ended: all before the answer's line
  const answer = await storeAnswer(actor, question, reply, early?.answerId ?? undefined);
  await startIdleClock(actor, answer.id);
  const recommended = await products;
  if (recommended.length) turn.emit({ event: 'recommendations', data: { products: recommended } });
  return { ...stored, outcome: 'answered', answer };
}

/**
 * The answer to a question still being written (`early.stored`): the provider call starts now. The
 * caller has checked everything that decides whether the AI answers (the conversation is the bot's,
 * business hours, not a request for a person), none of which the question's write changes.
 */
export const answerWhileStoring = (actor: ConversationActor, question: Message, turn: Turn<VisitorChunk>, settings: Branding, early: Early): Promise<Answered> =>
  streamAnswer(actor, question, early.stored, turn, settings, early);

/** The stored answer to a visitor message, if it has one (a retried message may). */
export async function answerTo(messageId: number): Promise<StoredAnswer | undefined> {
  const answer = await Message.findOne({ where: { replyToId: messageId, role: 'assistant' } });
  return answer ? storedAnswer(answer) : undefined;
}

/**
 * The visitor asked the AI for a person: its last line says one is coming, and the conversation waits
 * for an agent exactly as after the handoff button. The line answers the visitor's message (so a
 * retry finds it), and no model is called, so no usage is recorded.
 */
async function escalateToHuman(actor: ConversationActor, question: Message): Promise<StoredAnswer> {
  const now = new Date();
  const answer = await actor.record.write(undefined, async (unit) => {
    await unit.addEvent('handoff_requested', 'ai');
    const message = await unit.addLine({ role: 'assistant', content: handoffLine(actor.targetSeconds), replyToId: question.id, model: HANDOFF_MODEL });
    unit.change(escalate(unit.conversation, now));
    actor.updated(unit);
    return storedAnswer(message);
  });
  await startSlaClock(actor, now);
  actor.push('handoff_requested', now.getTime(), 'asked the AI for a person.');
  await routeNext(actor);
  return answer;
}

/**
 * The answer stored by one fenced statement (`storeLineAlone`): its line, the conversation's count and
 * preview, `message.created` (realtime and outbox) and the call's usage row, as the general write
 * stored them in a transaction of seven round trips. `id`: the line's id when the turn took it already.
 */
async function storeAnswer(actor: ConversationActor, question: Message, reply: GeneratedReply, id?: number): Promise<StoredAnswer> {
  try {
    const conversation = actor.conversation();
    const { companyId, chatbotId } = conversation;
    const conversationId = Number(conversation.id);
    const { provider, model, tokensIn, tokensOut } = reply;
    const line: NewLine = {
      id: id ?? (await takeMessageId()),
      companyId,
      conversationId,
      role: 'assistant',
      content: reply.text,
      clientId: null,
      replyToId: Number(question.id),
      provider,
      model,
      tokensIn,
      tokensOut,
      sources: reply.sources,
      createdAt: new Date(),
    };
    const usage = usageRow({ companyId, chatbotId, conversationId, kind: 'reply', provider, model, tokensIn, tokensOut }, line.createdAt);
    const { message, announce } = await actor.record.storeLineAlone(line, 'keep', {}, undefined, usage);
    announce();
    return storedAnswer(message);
  } catch (error) {
    // Another owner of this conversation answered the same message first (the unique index says so): use theirs.
    const theirs = error instanceof UniqueConstraintError ? await answerTo(question.id) : undefined;
    if (theirs) return theirs;
    throw error;
  }
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
