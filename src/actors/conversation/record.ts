import { Op, type InferAttributes, type Transaction } from 'sequelize';
import type { ActivationEnv } from '../runtime/behaviour';
import { Conversation, ConversationEvent, Message, type EventSource } from '../../models';
import { breaksOneOpenPerVisitor, openConversationExists } from '../../domain/conversations/openConversation';
import { presentMessageEvent } from '../../presenters/message';
import { conversationChannels } from '../../realtime/channels';
import type { RealtimeEmitter } from '../../realtime/emitter';
import type { RealtimeEventData, RealtimeEventName } from '../../realtime/events';

type EventData = Record<string, unknown>;

/** How much of the newest line the inbox shows. */
const PREVIEW = 200;

/** An event queued by a write, sent once the write committed. */
type Outgoing = (realtime: RealtimeEmitter) => void;

/** What a new line does to the visitor's unread count: a visitor line adds one, an agent's reply means it was read. */
export type Unread = 'add' | 'clear' | 'keep';

/** One fenced write of a conversation: its rows, its new state, and the realtime events to send once it commits. */
export class Unit {
  readonly outgoing: Outgoing[] = [];
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
  emit<E extends RealtimeEventName>(event: E, channels: string[], data: () => RealtimeEventData[E]): void {
    const seq = ++this.seq;
    this.outgoing.push((realtime) => {
      const payload = data();
      for (const channel of channels) realtime.emit(channel, event, payload, seq);
    });
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
    const current = { ...conversation.get(), ...this.changes };
    this.change({
      messageCount: current.messageCount + 1,
      lastMessagePreview: message.content.slice(0, PREVIEW),
      lastMessageAt: message.createdAt,
      ...(unread === 'add' && { unreadCount: current.unreadCount + 1 }),
      ...(unread === 'clear' && { unreadCount: 0 }),
    });
    this.emit('message.created', conversationChannels(conversation), () => presentMessageEvent(message, conversation.publicId));
    return message;
  }
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
  ) {}

  async write<T>(create: (() => Conversation) | undefined, work: (unit: Unit) => Promise<T>): Promise<T> {
    let unit: Unit | undefined;
    const subject = this.row ?? create!();
    try {
      const result = await this.env.write(async (transaction) => {
        const conversation = this.row ?? (await subject.save({ transaction }));
        unit = new Unit(transaction, conversation, Number(conversation.seq));
        const value = await work(unit);
        await conversation.update({ ...unit.changes, seq: unit.lastSeq, version: conversation.version + 1 }, { transaction });
        return { conversation, value };
      });
      this.row = result.conversation;
      for (const send of unit!.outgoing) send(this.realtime);
      return result.value;
    } catch (error) {
      // Before the reload: a write that moved the conversation to another visitor id collided with theirs.
      const visitorKey = subject.visitorKey;
      await this.row?.reload().catch(() => undefined);
      if (breaksOneOpenPerVisitor(error)) throw await this.openElsewhere(subject, visitorKey, error);
      throw error;
    }
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
