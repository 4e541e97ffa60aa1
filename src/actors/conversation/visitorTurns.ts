import type { Branding } from '../../domain/chatbots/branding';
import { visitorMayWrite, type VisitorClaim } from '../../domain/conversations/identity';
import { languageWith, visitorLanguage } from '../../domain/conversations/language';
import { saveLeadFromMessage } from '../../domain/leads/saveLead';
import { visitorBlocked, type RecentLine } from '../../domain/conversations/abuse';
import { firstLineStarted, firstStoredAlone, readForFirst, type FirstRead } from './firstMessage';
import { visitorColumns } from './visitorColumns';
import { contactIn } from '../../domain/leads/capturedContact';
import { readForTurn } from './turnRead';
import * as moves from '../../domain/conversations/transitions';
import { assertAllowance } from '../../domain/usage/allowance';
import { notFound } from '../../errors';
import { Conversation, Message } from '../../models';
import type { Turn } from '../runtime/behaviour';
import type { ConversationActor } from './actor';
import { refuseBlocked, refuseFlood } from './abuse';
import { answerTo, answerVisitor, answerWhileStoring, HeldDeltas, type Base } from './aiAnswer';
import type { NewLine } from './lineStatement';
import { prepareReply, type PreparedReply } from '../../ai/reply';
import type { ChatMessage } from '../../ai/providers/types';
import { asksForHuman } from '../../domain/conversations/escalation';
import type { RoutingSettings } from '../../domain/routing/settings';
import { aiHadLastWord } from './idleClose';
import type { ConversationView, VisitorChunk, VisitorMessageInput, VisitorMessageReply } from './protocol';
import { routeNext } from './routing';
import { isOpen } from '../../domain/routing/businessHours';
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
  const existing = actor.record.row && writable(actor, { ...input, sub: input.identity?.sub });
  if (!existing && !input.create) throw notFound('Conversation');
  // A new conversation's first message reads the visitor's block and its ids beside the chatbot, and is then stored by one statement.
  const first = !existing && firstStoredAlone(input) ? readForFirst(input.chatbotId, input.visitorKey, !asksForHuman(input.text)) : undefined;
  first?.catch(() => undefined); // awaited below, unless the chatbot's read fails first
  const bot = await actor.chatbot(input.chatbotId);
  if (!first) await refuseBlocked(existing, { companyId: bot.companyId, chatbotId: bot.id, visitorKey: input.visitorKey });
  else if ((await first).blocked) throw visitorBlocked();

  // Read once for the whole turn, beside the turn's own read: the flags are read fresh per turn, so an operator's change applies from the next message.
  const settingsRead = actor.settingsWithRouting(input.settingsEpoch);
  settingsRead.catch(() => undefined); // awaited below, unless the turn is refused first
  const alone = !!existing && storedAlone(existing, input);
  // A follow-up the AI will answer (as the conversation in memory says: the write below changes none of that), or a new
  // conversation's first message (the AI's until a person is asked for), starts its answer's reads now.
  const early = (first ? true : alone && moves.aiMayAnswer(existing)) && !asksForHuman(input.text);
  const preparing = early ? settingsRead.then(({ routing }) => (answersNow(routing) ? prepareReply(actor.deps.ctx, bot, input.text, input.settingsEpoch) : undefined)) : undefined;
  preparing?.catch(() => undefined); // a turn refused below never waits for it

  // One read: the retry by client id, the newest visitor lines (the flood rule and, below, the language sample), the new line's id, the answer's history.
  const read = existing ? await readForTurn(existing.id, input.clientId, alone, early) : undefined;
  const retried = read?.retriedId ? await Message.findByPk(read.retriedId) : null;
  const recent = read && !retried ? read.recent : undefined;
  if (existing && recent) await refuseFlood(actor, existing, recent);
  // Only AI calls count against the monthly allowance: a visitor may still write to a person who holds
  // (or is asked for) the conversation. A new or closed conversation is the AI's, so it is checked.
  const aiWillAnswer = !existing || existing.status === 'closed' || moves.aiMayAnswer(existing);
  if (!retried && aiWillAnswer) await assertAllowance(bot.company);
  const { settings, routing } = await settingsRead;
  if (!retried && read?.nextId && read.history && answersNow(routing)) {
    const prepared = (preparing ?? Promise.resolve(undefined)).then((ready) => ready ?? prepareReply(actor.deps.ctx, bot, input.text, input.settingsEpoch));
    const language = input.locale || actor.conversation().locale;
    return storeWhileAnswering(actor, storeAloneStarted(actor, input, read.nextId, read.recent), { history: read.history, answerId: read.answerId, language }, settings, turn, prepared);
  }
  if (first && early && answersNow(routing)) {
    const prepared = (preparing ?? Promise.resolve(undefined)).then((ready) => ready ?? prepareReply(actor.deps.ctx, bot, input.text, input.settingsEpoch));
    const ids = await first;
    // A new conversation has no turns before its first line, and speaks the language the message gives it.
    return storeWhileAnswering(actor, firstAnnounced(actor, firstLineStarted(actor, input, ids)), { history: [], answerId: ids.answerId, language: input.locale || null }, settings, turn, prepared);
  }
  const stored = retried ?? (read?.nextId ? await storeAlone(actor, input, read.nextId, read.recent) : first ? await storeFirst(actor, input, await first) : await store(actor, input, settings, recent));
  const conversation = actor.conversation();
  if (!retried) {
    if (!existing) actor.push('chat_started', 0, stored.content);
    // While the AI answers, the visitor is looked after; once a person holds or is awaited, agents hear of each message.
    if (!moves.aiMayAnswer(conversation)) actor.push('visitor_message', Number(stored.id), stored.content);
  }
  turn.emit({ event: 'meta', data: metaOf(conversation, stored) });
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
  // Outside business hours without `ai_after_hours` the AI stays silent too: the visitor is told the workspace's offline message.
  if (!answersNow(routing)) return { ...base, outcome: 'held', note: routing.offline_message };
  return answerVisitor(actor, stored, base, turn, settings);
}

/** Outside business hours without `ai_after_hours` the AI stays silent. */
const answersNow = (routing: RoutingSettings): boolean => routing.ai_after_hours || isOpen(routing);

const metaOf = (conversation: Conversation, stored: Message) => ({ conversation_id: conversation.publicId, visitor_message_id: Number(stored.id), status: conversation.status });

/**
 * A message the AI answers (checked by the caller, `early`: a follow-up, or a new conversation's first
 * message), stored by one statement while the provider is already asked: the provider call does not
 * wait for the write's round trip and commit.
 * What the caller sees is what the sequential path sends: `meta` once the write committed, then the
 * deltas (held until then), and nothing but the write's error when it fails (stale epoch, database):
 * the provider call is then aborted and its answer dropped, so an answer is only ever given to a
 * stored message. The turn runs alone in its actor (a takeover or any other message to this
 * conversation waits for it), so nothing between the read and the write can change whether the AI
 * answers; a new owner of the shard fences the write off, and then nothing is sent.
 */
async function storeWhileAnswering(
  actor: ConversationActor,
  { question, writing, conversation }: Started,
  { history, answerId, language }: { history: ChatMessage[]; answerId: number | null; language: string | null },
  settings: Branding,
  turn: Turn<VisitorChunk>,
  prepared: Promise<PreparedReply>,
): Promise<VisitorMessageReply> {
  // Aborted by the turn's own signal (the caller went away) or by a failed write: one controller the turn's
  // signal aborts, rather than AbortSignal.any's combined signal, which costs more than all the rest of this setup.
  const aborting = new AbortController();
  const stop = () => aborting.abort(turn.signal.reason);
  if (turn.signal.aborted) stop();
  else turn.signal.addEventListener('abort', stop, { once: true });
  const gate = new HeldDeltas();
  // Settled below: once the write committed, `meta` went out and the held deltas passed (or when the write failed).
  let settle!: { resolve: (base: Base) => void; reject: (error: unknown) => void };
  const stored = new Promise<Base>((resolve, reject) => (settle = { resolve, reject }));
  stored.catch(() => undefined); // the answer awaits it only once the provider call ends; the write's error is handled below
  const answering = answerWhileStoring(actor, question, { signal: aborting.signal, emit: (chunk) => turn.emit(chunk) }, settings, {
    stored,
    gate,
    history,
    prepared,
    language,
    answerId,
    conversation,
  });
  let announce: () => void;
  try {
    ({ announce } = await writing);
  } catch (error) {
    settle.reject(error);
    aborting.abort(error);
    await answering.catch(() => undefined);
    turn.signal.removeEventListener('abort', stop);
    throw error;
  }
  turn.emit({ event: 'meta', data: metaOf(actor.conversation(), question) });
  // Agents hear of the line before any of its answer (`message.delta` waits behind the gate).
  announce();
  gate.open();
  settle.resolve({ ...actor.view(), visitorMessageId: Number(question.id) });
  return answering.finally(() => turn.signal.removeEventListener('abort', stop));
}

/** The visitor asks for a person: the AI goes quiet, the wait starts, an SLA check is set for the target. */
export async function requestHandoff(actor: ConversationActor, owner: Owner): Promise<ConversationView> {
  const conversation = unblocked(actor, owner);
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

/**
 * A verified customer opened the widget on another device: their conversation moves to that device's
 * visitor id, so its state reads, socket, handoff and "new chat" work there (and no longer on the
 * device it leaves, until that one identifies again). 409 `conversation_open` when the device already
 * has an open conversation of its own and this one is open too.
 */
export async function continueOnDevice(actor: ConversationActor, claim: VisitorClaim & { sub: string }): Promise<ConversationView> {
  const conversation = writable(actor, claim);
  if (conversation.visitorKey !== claim.visitorKey) {
    await actor.record.write(undefined, async (unit) => {
      unit.change({ visitorKey: claim.visitorKey });
      actor.updated(unit);
    });
  }
  return actor.view();
}

/** The conversation, when this visitor may write to it (`visitorMayWrite`); 404 otherwise, as for a missing one. */
function writable(actor: ConversationActor, visitor: VisitorClaim): Conversation {
  const conversation = actor.conversation();
  if (!visitorMayWrite(conversation, visitor)) throw notFound('Conversation');
  return conversation;
}

/** The visitor's own conversation, unless it is blocked (403): a blocked visitor neither asks for a person nor closes it. */
function unblocked(actor: ConversationActor, owner: Owner): Conversation {
  const conversation = actor.conversation(owner);
  if (conversation.blocked) throw visitorBlocked();
  return conversation;
}

/** The widget's "new chat": idempotent; only the visitor who opened the conversation may close it. */
export async function reset(actor: ConversationActor, owner: Owner): Promise<{ closed: true; conversationId: string }> {
  const conversation = unblocked(actor, owner);
  const held = conversation.status === 'agent';
  // Not an agent's resolution, so no `resolved` event: the conversation simply ends (docs/api.md "Conversations").
  await move(actor, moves.closeByVisitor(conversation, new Date(), await aiHadLastWord(conversation.id)), null, 'visitor');
  await stopSlaClock(actor);
  if (held) await routeNext(actor); // the agent's seat came free
  return { closed: true, conversationId: conversation.publicId };
}

async function store(actor: ConversationActor, input: VisitorMessageInput, { auto_actions: autoActions }: Branding, recent: readonly RecentLine[] | undefined): Promise<Message> {
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
    if (!record.row) actor.created(unit);
    else if (reopening) actor.updated(unit);
    unit.change({ ...reopening, ...visitorColumns(conversation, input) });
    // Before the line is added, so the message is not read twice; a text still too short to tell keeps the earlier value.
    const language = await visitorLanguage(conversation, input.text, unit.transaction, recent);
    if (language) unit.change({ detectedLanguage: language });
    const line = await unit.addLine({ role: 'visitor', content: input.text, clientId: input.clientId ?? null }, 'add');
    const lead = autoActions && (await saveLeadFromMessage({ ...conversation.get(), ...unit.changes }, input.text, unit.transaction));
    if (lead) actor.leadSaved(unit, lead);
    // A new conversation is announced whole (`conversation.created`), and a reopened one already is.
    if (lead && record.row && !reopening) actor.updated(unit);
    return line;
  });
}

/**
 * Whether the message is stored by one statement (`storeAlone`): a follow-up that adds its line and
 * changes the conversation's columns only. Reopening a closed conversation (an event row and
 * `conversation.updated`), moving it to another device (which may meet the visitor's other open
 * conversation) and a message with contact details (a lead may be saved) take the general write.
 */
function storedAlone(conversation: Conversation, input: VisitorMessageInput): boolean {
  if (moves.reopenByVisitor(conversation) || conversation.visitorKey !== input.visitorKey) return false;
  const contact = contactIn(input.text);
  return !contact.email && !contact.phone;
}

/** `store` for a message `storedAlone` allows: the same columns, line, realtime and outbox events, in one fenced statement. */
async function storeAlone(actor: ConversationActor, input: VisitorMessageInput, id: number, recent: readonly RecentLine[]): Promise<Message> {
  const { message, announce } = await storeAloneStarted(actor, input, id, recent).writing;
  announce();
  return message;
}

/**
 * A one-statement write started: the line it writes (known before the write answers), the write, whose
 * events the caller sends (`announce`), and for a new conversation the row it creates (not yet the record's).
 */
interface Started {
  question: Message;
  writing: Promise<{ message: Message; announce: () => void }>;
  conversation?: Conversation;
}

/** `storeAlone`, with the line it writes known before the write answers, and its events left to the caller (`announce`). */
function storeAloneStarted(actor: ConversationActor, input: VisitorMessageInput, id: number, recent: readonly RecentLine[]): Started {
  const conversation = actor.conversation();
  const language = languageWith(conversation, input.text, recent);
  const line: NewLine = { id, companyId: conversation.companyId, conversationId: conversation.id, role: 'visitor', content: input.text, clientId: input.clientId ?? null, createdAt: new Date() };
  const question = Message.build(line, { isNewRecord: false, raw: true });
  return { question, writing: actor.record.storeLineAlone(line, 'add', { ...visitorColumns(conversation, input), ...(language && { detectedLanguage: language }) }, question) };
}

/** A new conversation's first message stored by one statement (`firstLineStarted`), its events sent once it committed, as `write` sends them. */
async function storeFirst(actor: ConversationActor, input: VisitorMessageInput, read: FirstRead): Promise<Message> {
  const { message, announce } = await firstLineStarted(actor, input, read).writing;
  announce();
  return message;
}

/**
 * The first message's write with its events sent once it committed, and agents told of the new
 * conversation (`chat_started`), in the general write's order: both before the caller's `meta`.
 */
function firstAnnounced(actor: ConversationActor, started: Started): Started {
  const writing = started.writing.then(({ message, announce }) => {
    announce();
    actor.push('chat_started', 0, message.content);
    return { message, announce: () => undefined };
  });
  return { ...started, writing };
}
