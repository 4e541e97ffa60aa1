import { Op, type InferAttributes, type Transaction } from 'sequelize';
import type { ActivationEnv } from '../runtime/behaviour';
import { Conversation, ConversationEvent, Message, type EventSource } from '../../models';
import { breaksOneOpenPerVisitor, openConversationExists } from '../../domain/conversations/openConversation';
import type { WebhookEventType } from '../../domain/webhooks/events';
import { recordEvents, startDeliveries, type OutboxEvent } from '../../domain/webhooks/outbox';
import type { JobQueue } from '../../jobs/definitions';
import type { Logger } from 'pino';
import { presentMessageEvent } from '../../presenters/message';
import { presentWebhookMessage } from '../../presenters/webhookEvents';
import { companyChannel, conversationChannels } from '../../realtime/channels';
import type { RealtimeEmitter } from '../../realtime/emitter';
import type { ConversationEventData, RealtimeEventData, RealtimeEventName } from '../../realtime/events';
import { fencedStatement } from '../cluster/fences';
import { changedColumns, lineStatement, type NewLine } from './lineStatement';
import { firstLineStatement } from './firstLineStatement';
import type { UsageRow } from '../../domain/usage/recordUsage';

type EventData = Record<string, unknown>;

/** How much of the newest line the inbox shows. */
const PREVIEW = 200;

/** An event queued by a write, sent once the write committed. */
type Outgoing = (realtime: RealtimeEmitter) => void;

/** An integrator's event of this write (docs/webhooks.md), its data read inside the transaction once the row is written. */
interface Published {
  type: WebhookEventType;
  seq: number;
  data: () => unknown;
}

/** The columns whose change makes `conversation.updated` an integrator's event too; other changes (counters, previews) are the inbox's business. */
const INTEGRATOR_FIELDS = ['status', 'handoffState', 'assignedUserId', 'resolution'] as const;

/** What a new line does to the visitor's unread count: a visitor line adds one, an agent's reply means it was read. */
export type Unread = 'add' | 'clear' | 'keep';

/** What a new line changes on its conversation: its count, its inbox preview, and the visitor's unread count. */
export function lineColumns(current: InferAttributes<Conversation>, message: Message, unread: Unread): Partial<InferAttributes<Conversation>> {
  return {
    messageCount: current.messageCount + 1,
    lastMessagePreview: message.content.slice(0, PREVIEW),
    lastMessageAt: message.createdAt,
    ...(unread === 'add' && { unreadCount: current.unreadCount + 1 }),
    ...(unread === 'clear' && { unreadCount: 0 }),
  };
}

/**
 * `conversation.set(columns, { raw: true })` for a one-statement write's columns: the values as they
 * were stored, and nothing left pending (`changed()` empty, the previous values those values).
 * Sequelize does the same per column through its setter path (its raw sanitizers leave times,
 * numbers, text and JSON as they are) and then copies the row with its own spread helper; both cost
 * more than the rest of the write's bookkeeping. A boolean column is left to Sequelize, whose
 * sanitizer reads "true"/1 as true even raw.
 */
export function setAsStored(conversation: Conversation, columns: Partial<InferAttributes<Conversation>>): void {
  const attributes = Conversation.getAttributes() as Record<string, { type: { key?: string } }>;
  if (Object.keys(columns).some((key) => attributes[key]?.type.key === 'BOOLEAN' || !attributes[key])) {
    conversation.set(columns, { raw: true });
    return;
  }
  Object.assign(conversation.dataValues, columns);
  (conversation as unknown as { _previousDataValues: object })._previousDataValues = { ...conversation.dataValues };
}

/** One fenced write of a conversation: its rows, its new state, and the realtime events to send once it commits. */
export class Unit {
  readonly outgoing: Outgoing[] = [];
  readonly published: Published[] = [];
  changes: Partial<InferAttributes<Conversation>> = {};

  constructor(
    readonly transaction: Transaction,
    readonly conversation: Conversation,
    private seq: number,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  change(changes: Partial<InferAttributes<Conversation>> | undefined): this {
    if (changes) this.changes = { ...this.changes, ...changes };
    return this;
  }

  /**
   * Queues a realtime event; `seq` rises once per durable event of this conversation. `data` is read
   * after commit, so it shows the conversation as written.
   */
  emit<E extends RealtimeEventName>(event: E, channels: string[], data: () => RealtimeEventData[E]): number {
    const seq = ++this.seq;
    this.outgoing.push((realtime) => {
      const payload = data();
      for (const channel of channels) realtime.emit(channel, event, payload, seq);
    });
    return seq;
  }

  /**
   * Records an integrator's event (webhooks, the v1 catch-up) in this write's transaction: the outbox.
   * It takes the `seq` of its realtime twin, or a new one when it has none (`lead.created`), so its order
   * among a conversation's events is the order agents see. `data` is read after the row is written,
   * still inside the transaction.
   */
  publish(type: WebhookEventType, data: () => unknown, seq = ++this.seq): void {
    this.published.push({ type, seq, data });
  }

  addEvent(type: string, source: EventSource, userId: number | null = null, data: EventData = {}): Promise<ConversationEvent> {
    const { id, companyId } = this.conversation;
    return ConversationEvent.create({ companyId, conversationId: id, type, source, userId, data }, { transaction: this.transaction });
  }

  /**
   * A line of the transcript (visitor, AI, agent): stored, counted, shown as the inbox preview, and
   * sent to everyone watching (`message.created` on the conversation's channels).
   */
  async addLine(fields: Pick<Message, 'role' | 'content'> & Partial<Message>, unread: Unread = 'keep'): Promise<Message> {
    const conversation = this.conversation;
    const message = await Message.create({ ...fields, companyId: conversation.companyId, conversationId: conversation.id }, { transaction: this.transaction });
    this.change(lineColumns({ ...conversation.get(), ...this.changes }, message, unread));
    const seq = this.emit('message.created', conversationChannels(conversation), () => presentMessageEvent(message, conversation.publicId));
    this.publish('message.created', () => presentWebhookMessage(message), seq);
    return message;
  }
}

/**
 * The write's integrator events with their data. `conversation.updated` only when a field integrators
 * follow changed, once per write (its data is the row as written), and not beside `conversation.created`,
 * which already shows the row as written.
 */
async function publishedEvents(unit: Unit, before: InferAttributes<Conversation>): Promise<OutboxEvent[]> {
  const after = unit.conversation;
  const moved = INTEGRATOR_FIELDS.some((field) => before[field] !== after[field]);
  const created = unit.published.some((event) => event.type === 'conversation.created');
  const lastUpdate = unit.published.filter((event) => event.type === 'conversation.updated').at(-1);
  const kept = unit.published.filter((event) => event.type !== 'conversation.updated' || (event === lastUpdate && moved && !created));
  return Promise.all(kept.map(async ({ type, seq, data }) => ({ type, seq, data: await data() })));
}

/**
 * The conversation an actor owns, as loaded from Postgres, and the one way to change it: a write
 * under the shard's fencing epoch, after which the in-memory row matches the database and the
 * events go out in order. A write that fails leaves memory reloaded from the database.
 */
export class ConversationRecord {
  constructor(
    public row: Conversation | null,
    private readonly env: ActivationEnv<'conversation'>,
    private readonly realtime: RealtimeEmitter,
    private readonly outbox: { jobs: JobQueue; logger: Logger },
  ) {}

  async write<T>(create: (() => Conversation) | undefined, work: (unit: Unit) => Promise<T>): Promise<T> {
    let unit: Unit | undefined;
    const subject = this.row ?? create!();
    try {
      const result = await this.env.write(async (transaction) => {
        const conversation = this.row ?? (await subject.save({ transaction }));
        unit = new Unit(transaction, conversation, Number(conversation.seq));
        const before = { ...conversation.get() };
        const value = await work(unit);
        await conversation.update({ ...unit.changes, seq: unit.lastSeq, version: conversation.version + 1 }, { transaction });
        const chains = await recordEvents(conversation, await publishedEvents(unit, before), transaction);
        return { conversation, value, chains };
      });
      this.row = result.conversation;
      for (const send of unit!.outgoing) send(this.realtime);
      startDeliveries(this.outbox.jobs, result.chains, (error) => this.outbox.logger.warn({ err: error }, 'webhook delivery not started; the sweep will start it'));
      return result.value;
    } catch (error) {
      // Before the reload: a write that moved the conversation to another visitor id collided with theirs.
      const visitorKey = subject.visitorKey;
      await this.row?.reload().catch(() => undefined);
      if (breaksOneOpenPerVisitor(error)) throw await this.openElsewhere(subject, visitorKey, error);
      throw error;
    }
  }

  /**
   * A line added alone, with the columns it changes (no event rows, no other line): the same rows,
   * realtime event and outbox event as `write` with `addLine`, in one fenced statement (see
   * lineStatement.ts) instead of a transaction of six round trips and model instances. The hot path
   * of a visitor's follow-up message; the caller leaves anything more to `write`. The events
   * (realtime `message.created`, the webhook deliveries' start) go out when the caller calls
   * `announce`, once it has told its own caller the line is stored: a visitor's `meta` goes first.
   * `message`: the line's model instance, when the caller built it already. `usage`: an AI answer's
   * call, stored in the ledger by the same statement (as `recordUsage` in the answer's transaction).
   */
  async storeLineAlone(
    line: NewLine,
    unread: Unread,
    changes: Partial<InferAttributes<Conversation>>,
    message = Message.build(line, { isNewRecord: false, raw: true }),
    usage?: UsageRow,
  ): Promise<{ message: Message; announce: () => void }> {
    const conversation = this.row!;
    const seq = Number(conversation.seq) + 1;
    const columns = {
      ...changedColumns(conversation, { ...changes, ...lineColumns(conversation.get(), message, unread) }),
      seq,
      version: conversation.version + 1,
      updatedAt: new Date(),
    };
    const event = { seq, data: presentWebhookMessage(message) };
    const { webhooks } = await fencedStatement<{ webhooks: Array<number | string> }>(Conversation.sequelize!, this.env.shard, this.env.epoch, lineStatement(line, conversation.id, columns, event, usage));
    // As a reload would leave it: the row as written, nothing pending.
    setAsStored(conversation, columns);
    return { message, announce: () => this.announceLine(conversation, message, seq, webhooks) };
  }

  /**
   * A new conversation with its first line, stored by one fenced statement (firstLineStatement.ts):
   * the same rows, realtime and outbox events as `write` creating it with `created` and `addLine`
   * (`conversation.created` then `message.created`, `seq` 1 and 2). `conversation`: the row as that
   * write leaves it (every column, `seq` and `version` included), not yet the record's; it becomes the
   * record's row once the statement committed. `createdData`: the realtime `conversation.created`
   * data, read after commit. The events go out when the caller calls `announce`. A second open
   * conversation of the visitor is refused with the 409 naming theirs, as from `write`.
   */
  async storeFirstLine(
    conversation: Conversation,
    line: NewLine,
    message: Message,
    webhookData: unknown,
    createdData: () => ConversationEventData,
  ): Promise<{ message: Message; announce: () => void }> {
    const [createdSeq, lineSeq] = [1, 2];
    const events: OutboxEvent[] = [
      { type: 'conversation.created', seq: createdSeq, data: webhookData },
      { type: 'message.created', seq: lineSeq, data: presentWebhookMessage(message) },
    ];
    let webhooks: Array<number | string>;
    try {
      ({ webhooks } = await fencedStatement<{ webhooks: Array<number | string> }>(
        Conversation.sequelize!,
        this.env.shard,
        this.env.epoch,
        firstLineStatement(conversation.get(), line, events),
      ));
    } catch (error) {
      if (breaksOneOpenPerVisitor(error)) throw await this.openElsewhere(conversation, conversation.visitorKey, error);
      throw error;
    }
    this.row = conversation;
    const announce = () => {
      this.realtime.emit(companyChannel(conversation.companyId), 'conversation.created', createdData(), createdSeq);
      this.announceLine(conversation, message, lineSeq, webhooks);
    };
    return { message, announce };
  }

  /** What a one-statement write leaves to its caller's `announce`: the line's realtime `message.created`, and its webhooks' deliveries started. */
  private announceLine(conversation: Conversation, message: Message, seq: number, webhooks: ReadonlyArray<number | string>): void {
    const payload = presentMessageEvent(message, conversation.publicId);
    for (const channel of conversationChannels(conversation)) this.realtime.emit(channel, 'message.created', payload, seq);
    startDeliveries(
      this.outbox.jobs,
      webhooks.map((webhookId) => ({ webhookId: Number(webhookId), conversationId: Number(conversation.id) })),
      (error) => this.outbox.logger.warn({ err: error }, 'webhook delivery not started; the sweep will start it'),
    );
  }

  /** The visitor's other open conversation with this chatbot, which this write would have duplicated. */
  private async openElsewhere(subject: Conversation, visitorKey: string, error: unknown): Promise<unknown> {
    const open = await Conversation.findOne({
      where: { chatbotId: subject.chatbotId, visitorKey, status: { [Op.ne]: 'closed' }, publicId: { [Op.ne]: subject.publicId } },
      attributes: ['publicId'],
    });
    return open ? openConversationExists(open.publicId) : error;
  }
}
