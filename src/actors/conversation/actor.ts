import type { ActorDeps } from '../deps';
import { notifyAgents } from '../notifyAgents';
import type { ActivationEnv } from '../runtime/behaviour';
import { notFound } from '../../errors';
import { Chatbot, Company, type Conversation } from '../../models';
import type { Branding } from '../../domain/chatbots/branding';
import { storedSettingsOf } from '../../domain/chatbots/cachedChatbots';
import { settingsOf } from '../../domain/chatbots/flags';
import { routingOf, type RoutingSettings } from '../../domain/routing/settings';
import type { NotificationEvent } from '../../domain/notifications/preferences';
import { visitorDisplayName } from '../../domain/visitors/displayName';
import { companyChannel, conversationChannels } from '../../realtime/channels';
import { leadOf, type SavedLead } from '../../domain/leads/saveLead';
import { presentWebhookConversation, presentWebhookLead } from '../../presenters/webhookEvents';
import type { ConversationView } from './protocol';
import type { ConversationRecord, Unit } from './record';
import { presentConversationEvent } from '../../presenters/realtimeEvents';
import type { ConversationEventData } from '../../realtime/events';
import { viewOf } from './view';

export type ChatbotWithCompany = Chatbot & { company: Company };

/**
 * The flags and routing settings of a stored copy (storedSettingsOf), worked out once per copy: the
 * copy is shared and never changed (a change on any node replaces it with a new one), and
 * `routingOf` runs a schema per setting, which cost a turn more than its whole settings read.
 * Shared too: read them, never change them.
 */
const resolvedSettings = new WeakMap<Chatbot, { settings: Branding; routing: RoutingSettings }>();

/** One live conversation: its record, the chatbot that answers in it, and the services its turns use. */
export class ConversationActor {
  private bot: ChatbotWithCompany | undefined;

  constructor(
    readonly env: ActivationEnv<'conversation'>,
    readonly record: ConversationRecord,
    readonly deps: ActorDeps,
  ) {}

  get id(): string {
    return this.env.id;
  }

  /** The chatbot (with its workspace), loaded once per activation. */
  async chatbot(chatbotId = this.record.row?.chatbotId): Promise<ChatbotWithCompany> {
    if (this.bot && this.bot.id === chatbotId) return this.bot;
    const found = chatbotId === undefined ? null : await Chatbot.findByPk(chatbotId, { include: [{ model: Company, as: 'company' }] });
    if (!found?.company) throw notFound('Chatbot');
    return (this.bot = found as ChatbotWithCompany);
  }

  /**
   * The chatbot's settings (its flags) as stored now, checked on each use (storedSettingsOf: no query
   * while nothing changed): an operator's change applies from the next turn, not only once this
   * conversation is activated again.
   */
  async settings(): Promise<Branding> {
    const chatbot = this.loaded();
    const stored = await storedSettingsOf(this.deps.ctx, chatbot.id);
    return settingsOf(stored ?? chatbot);
  }

  /**
   * The chatbot's settings and the workspace's routing settings, both as stored now, in one query
   * (none while nothing changed): a visitor's turn needs both (business hours decide whether the AI
   * answers) and is the hot path. `epochRead`: the settings epoch the request's route read (the
   * stream route's chatbot), checked instead of reading it again.
   */
  async settingsWithRouting(epochRead?: string): Promise<{ settings: Branding; routing: RoutingSettings }> {
    const chatbot = this.loaded();
    const stored = await storedSettingsOf(this.deps.ctx, chatbot.id, epochRead);
    if (!stored?.company) return { settings: settingsOf(stored ?? chatbot), routing: routingOf(stored?.company ?? chatbot.company) };
    let resolved = resolvedSettings.get(stored);
    if (!resolved) resolvedSettings.set(stored, (resolved = { settings: settingsOf(stored), routing: routingOf(stored.company) }));
    return resolved;
  }

  get companyId(): number {
    return this.loaded().companyId;
  }

  /** The workspace's first-response target, which sets a waiting visitor's `wait_remaining`. */
  get targetSeconds(): number {
    return this.loaded().company.firstResponseTargetSeconds;
  }

  /** The chatbot is loaded at activation (or, for a new conversation, by its first message). */
  private loaded(): ChatbotWithCompany {
    if (!this.bot) throw new Error('conversation actor used before its chatbot was loaded');
    return this.bot;
  }

  /** The conversation this turn acts on; 404 when it does not exist (or is not the caller's to see). */
  conversation(owner?: { chatbotId: number; visitorKey: string }): Conversation {
    const row = this.record.row;
    if (!row || (owner && (row.chatbotId !== owner.chatbotId || row.visitorKey !== owner.visitorKey))) throw notFound('Conversation');
    return row;
  }

  view(): ConversationView {
    return viewOf(this.conversation(), this.targetSeconds);
  }

  eventData(): ConversationEventData {
    return presentConversationEvent(this.conversation(), this.targetSeconds);
  }

  /**
   * Queues `conversation.updated` for this write: on the thread and the inbox unless told otherwise.
   * Its data is read after commit, so it shows the conversation as written.
   */
  updated(unit: Unit, channels = conversationChannels(unit.conversation)): void {
    const seq = unit.emit('conversation.updated', channels, () => this.eventData());
    unit.publish('conversation.updated', () => this.webhookData(unit), seq);
  }

  /** Queues `conversation.created` for a write that created the conversation: on the inbox, and for integrators. */
  created(unit: Unit): void {
    const seq = unit.emit('conversation.created', [companyChannel(unit.conversation.companyId)], () => this.eventData());
    unit.publish('conversation.created', () => this.webhookData(unit), seq);
  }

  /**
   * `conversation.created`'s data for a conversation stored by one statement (`storeFirstLine`): the
   * integrators' (of the row as it will be written) and the realtime one (read after commit), as
   * `created` gives them.
   */
  createdData(conversation: Conversation): { webhook: unknown; realtime: () => ConversationEventData } {
    return { webhook: presentWebhookConversation(conversation, this.loaded().publicKey), realtime: () => this.eventData() };
  }

  /** A lead saved in this write: integrators hear `lead.created` the first time only. */
  leadSaved(unit: Unit, lead: SavedLead): void {
    if (lead.created) unit.publish('lead.created', async () => presentWebhookLead(await leadOf(lead.id, unit.transaction)));
  }

  /** Read inside the write: the row of a conversation this write creates is not the record's yet. */
  private webhookData(unit: Unit) {
    return presentWebhookConversation(unit.conversation, this.loaded().publicKey);
  }

  /** Tells agents (their devices, their open tabs) about this conversation; raised after the write it describes committed. */
  push(event: NotificationEvent, occurrence: string | number, text: string): void {
    const c = this.conversation();
    notifyAgents(
      this.deps,
      {
        event,
        key: `${event}:${c.publicId}:${occurrence}`,
        companyId: c.companyId,
        chatbotId: c.chatbotId,
        conversationId: c.publicId,
        assignedUserId: c.assignedUserId,
        visitor: visitorDisplayName({ name: c.visitorName, email: c.visitorEmail, key: c.visitorKey }),
        text,
      },
      Number(c.seq),
    );
  }
}
