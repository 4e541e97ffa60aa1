import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { ActivationEnv } from '../runtime/behaviour';
import type { Actors } from '../runtime/router';
import type { RealtimeEmitter } from '../../realtime/emitter';
import { companyChannel } from '../../realtime/channels';
import { HELD_BATCH, takeHeldMessages, type HeldMessage } from '../../domain/visitors/heldMessages';
import { departureMs, isOnline } from '../../domain/visitors/presence';
import { beatFacts, type BeatFacts } from '../../domain/visitors/beatFacts';
import { insertVisitor, type VisitorRecord } from '../../domain/visitors/records';
import { conversationExists, latestOpenConversation, ownsConversation, type VisitorOnChatbot } from '../../domain/conversations/visitorConversations';
import { visitorBlocked } from '../../domain/conversations/abuse';
import { AppError } from '../../errors';
import type { PushEvent } from '../../domain/push/events';
import { visitorDisplayName } from '../../domain/visitors/displayName';
import { presentWidgetMessage } from '../../presenters/message';
import { presentVisitorPresence } from '../../presenters/realtimeEvents';
import { applyBeat } from './journey';
import type { PresenceWriter } from './presenceWriter';
import type { HeartbeatInput, HeartbeatReply, PresenceSnapshot } from './protocol';

export interface VisitorServices {
  sequelize: Sequelize;
  realtime: RealtimeEmitter;
  actors: Actors;
  writer: PresenceWriter;
  pollSeconds: number;
  /** Agents' devices hear of arrivals (push delivery decides who, and whether the chatbot shows live visitors). */
  raise: (event: PushEvent) => void;
}

/** Visitor events are not part of any conversation, so they carry seq 0 (seq rises per conversation only). */
export const VISITOR_SEQ = 0;
const DEPARTURE_REMINDER = 'departure';
/** A non-null "latest open conversation" is re-read after this long: it may have been closed since. */
const LATEST_TTL_MS = 30_000;
/** Ownership answers remembered per activation; a widget rarely shows more than one or two conversations. */
const OWNERSHIP_CACHE = 64;

/** What a visitor actor knows of its visitor on one chatbot; an absent field is read again when needed. */
interface ChatbotState {
  /**
   * Whether the visitor is blocked there: read on the first beat (with the other facts), then kept
   * current by the conversation actors' `blockChanged`, so a heartbeat costs no query for it.
   */
  blocked?: boolean;
  /** The visitor's latest open conversation there, and when it was read. */
  latest?: { id: string | null; at: number };
  /** The new conversation an invite was sent into, which may not be written yet. */
  invited?: string;
}

/**
 * One visitor of one workspace, in memory: presence (online while beats arrive, gone after two
 * silent intervals), the journey (page, page views, entry page, referrer, device), and the hand-over
 * of messages held for the visitor. Postgres is the record, written behind by the PresenceWriter.
 */
export class VisitorActor {
  /** Set on activation (a message may have been held while no actor was alive) and by `held`. */
  private mayHaveHeld = true;
  /**
   * Public conversation id -> whether it is this visitor's (on the chatbot it was checked for).
   * Made when first needed: most visitors never name a conversation, and a node keeps every
   * visitor on its sites in memory (docs/performance.md, "Memory per known visitor").
   */
  private owned: Map<string, boolean> | undefined;
  /**
   * What this actor knows of the visitor on each chatbot they beat on: nearly always one, kept in a
   * field; a Map only for the rare visitor seen by a second chatbot of the workspace.
   */
  private first: { chatbotId: number; state: ChatbotState } | undefined;
  private others: Map<number, ChatbotState> | undefined;
  private departureTimer: NodeJS.Timeout | undefined;
  /** The beat (lastSeenAt) whose departure was announced, so a timer and a reminder never both announce it. */
  private departedFor: number | null = null;
  private closed = false;

  /**
   * `woken`: the facts of the beat that woke the actor, read with its row (src/domain/visitors/arrivalRead.ts),
   * for that beat's chatbot and named conversation; what its turn would otherwise read first.
   */
  constructor(
    private readonly env: ActivationEnv<'visitor'>,
    private readonly services: VisitorServices,
    private record: VisitorRecord,
    woken?: { chatbotId: number; named: string | undefined; facts: BeatFacts },
  ) {
    if (woken) this.knowFacts(this.stateOn(woken.chatbotId), woken.named, woken.facts);
    if (this.online(Date.now())) this.armDeparture();
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatReply> {
    const owner: VisitorOnChatbot = { companyId: this.record.companyId, chatbotId: input.chatbotId, visitorKey: this.record.visitorKey };
    const named = input.conversationId?.toLowerCase();
    const known = this.stateOn(owner.chatbotId);
    if (known.blocked === undefined) await this.readFacts(owner, known, named);
    // Before anything is recorded: a blocked visitor leaves no presence or page view behind.
    if (known.blocked) throw visitorBlocked();
    const { writer, sequelize } = this.services;
    const now = Date.now();
    const wasOnline = this.online(now);
    const { next, newPage } = applyBeat(this.record, input, now);
    if (next.id === null) {
      next.id = await insertVisitor(sequelize, next);
      this.record = next;
    } else {
      // The beat is written into the record this actor holds (and the writer, until its flush)
      // rather than kept as a new one: a visitor's record lives until their next beat, seconds
      // with thousands of visitors, so a new one each beat was promoted to the old generation and
      // collected there, a cost that grew with the number of live visitors (docs/performance.md,
      // "Heartbeat CPU, eighth round"). `next` itself dies young.
      Object.assign(this.record, next);
      writer.mark(this.record);
      if (newPage) writer.pageView({ companyId: next.companyId, visitorId: next.id, url: next.page!, title: next.title, referrer: next.referrer, viewedAt: now });
    }
    if (!wasOnline) {
      this.announce('visitor.online');
      this.raiseArrival(now);
    }
    this.armDeparture();

    const passed = named ? await this.ownConversation(owner, named) : undefined;
    const held = this.mayHaveHeld || passed?.firstSeen ? await this.takeHeld(owner) : [];
    const conversationId = await this.conversationFor(owner, passed?.id, held);
    return { pollSeconds: this.services.pollSeconds, conversationId, messages: held.map(presentWidgetMessage) };
  }

  held(): void {
    this.mayHaveHeld = true;
    // A held message may come from a conversation this actor has not heard of (an agent's invite),
    // which may also be the visitor's latest now, and so decide whether they are blocked.
    for (const known of this.knownChatbots()) {
      known.blocked = undefined;
      known.latest = undefined;
    }
  }

  /** A conversation of the visitor on this chatbot was blocked or unblocked: read it again on the next beat. */
  blockChanged(chatbotId: number): void {
    const known = this.first?.chatbotId === chatbotId ? this.first.state : this.others?.get(chatbotId);
    if (known) known.blocked = undefined;
  }

  async presence(): Promise<PresenceSnapshot> {
    const r = this.record;
    const conversationId = r.chatbotId === null ? null : await this.latestOpen({ companyId: r.companyId, chatbotId: r.chatbotId, visitorKey: r.visitorKey });
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      online: this.online(Date.now()),
      chatbotId: r.chatbotId,
      page: r.page,
      title: r.title,
      referrer: r.referrer,
      entryPage: r.entryPage,
      pageViews: r.pageViews,
      firstSeen: iso(r.firstSeenAt),
      lastSeen: iso(r.lastSeenAt),
      device: r.device,
      browser: r.browser,
      os: r.os,
      country: r.country,
      conversationId,
    };
  }

  /**
   * The conversation an invite goes into. The open one wins; without one, an invite still on its way
   * (its conversation not written yet) is joined rather than a second conversation started beside it.
   * The database's one-open-conversation rule backs this up across nodes.
   */
  async inviteConversation(chatbotId: number): Promise<{ conversationId: string }> {
    if (!this.online(Date.now())) throw new AppError(409, 'visitor_left', 'This visitor has left the site.');
    const owner = { companyId: this.record.companyId, chatbotId, visitorKey: this.record.visitorKey };
    const open = await latestOpenConversation(owner);
    const known = this.stateOn(chatbotId);
    const pending = known.invited;
    const conversationId = open ?? (pending && !(await conversationExists(pending)) ? pending : randomUUID());
    known.invited = conversationId;
    return { conversationId };
  }

  /** The departure check for the beat at `lastSeen`: announces it unless a newer beat came. */
  depart(lastSeen: number): void {
    const current = this.record.lastSeenAt;
    if (current === null || current > lastSeen || this.departedFor === current) return;
    if (this.online(Date.now())) return this.armDeparture();
    this.departedFor = current;
    this.announce('visitor.offline');
  }

  /**
   * Passivation or a shard move: the last state goes to Postgres before the shard's next owner can
   * load it, and a visitor still online gets a durable reminder, so their departure is announced
   * by whichever node owns them when it is due.
   */
  async deactivate(): Promise<void> {
    this.closed = true;
    clearTimeout(this.departureTimer);
    const lastSeen = this.record.lastSeenAt;
    const now = Date.now();
    // Gone, and the departure timer's turn has not run yet: announce it now, or nobody will.
    if (lastSeen !== null && !this.online(now) && this.departedFor !== lastSeen) this.depart(lastSeen);
    if (lastSeen !== null && this.online(now) && this.departedFor !== lastSeen) {
      const delayMs = lastSeen + departureMs(this.services.pollSeconds) - now;
      await this.env.remind({ type: 'depart', lastSeen }, { key: DEPARTURE_REMINDER, delayMs }).catch((error: unknown) =>
        this.env.logger.warn({ err: error, visitor: this.env.id }, 'could not schedule the departure reminder'),
      );
    }
    await this.services.writer.flush();
  }

  private online(now: number): boolean {
    return isOnline(this.record.lastSeenAt, now, this.services.pollSeconds);
  }

  private raiseArrival(at: number): void {
    const r = this.record;
    this.services.raise({
      event: 'visitor_arrived',
      key: `visitor_arrived:${r.companyId}:${r.visitorKey}:${at}`,
      companyId: r.companyId,
      chatbotId: r.chatbotId,
      conversationId: null,
      assignedUserId: null,
      visitor: visitorDisplayName({ name: null, email: null, key: r.visitorKey }),
      text: r.title || r.page || '',
    });
  }

  private announce(event: 'visitor.online' | 'visitor.offline'): void {
    const data = presentVisitorPresence(this.record, event === 'visitor.online');
    this.services.realtime.emit(companyChannel(this.record.companyId), event, data, VISITOR_SEQ);
  }

  /**
   * One timer per visitor, not one per beat: when it fires after newer beats it re-arms from the
   * last one; when the visitor really fell silent it sends `depart` so the check runs as a turn.
   */
  private armDeparture(): void {
    if (this.departureTimer || this.closed) return;
    const lastSeen = this.record.lastSeenAt;
    if (lastSeen === null) return;
    const due = lastSeen + departureMs(this.services.pollSeconds) - Date.now();
    this.departureTimer = setTimeout(() => {
      this.departureTimer = undefined;
      if (this.closed) return;
      if (this.online(Date.now())) return this.armDeparture();
      const seen = this.record.lastSeenAt!;
      this.services.actors.tell('visitor', this.env.id, { type: 'depart', lastSeen: seen });
    }, Math.max(0, due));
    this.departureTimer.unref();
  }

  /** Whether the widget's conversation is this visitor's; `firstSeen` when this actor had not checked it before. */
  private async ownConversation(owner: VisitorOnChatbot, id: string): Promise<{ id: string; firstSeen: boolean } | undefined> {
    const known = this.owned?.get(id);
    if (known !== undefined) return known ? { id, firstSeen: false } : undefined;
    const mine = await ownsConversation(owner, id);
    this.rememberOwned(id, mine);
    return mine ? { id, firstSeen: true } : undefined;
  }

  /**
   * Everything the beat would otherwise read one statement at a time (block, open conversation,
   * waiting messages, the named conversation's owner), in one statement shared with the other
   * visitors beating at this moment: what makes a new visitor's first beat cheap.
   */
  private async readFacts(owner: VisitorOnChatbot, known: ChatbotState, named: string | undefined): Promise<void> {
    this.knowFacts(known, named, await beatFacts(this.services.sequelize, owner, named));
  }

  private knowFacts(known: ChatbotState, named: string | undefined, facts: BeatFacts): void {
    known.blocked = facts.blocked;
    known.latest ??= { id: facts.latestOpen, at: Date.now() };
    // Nothing waits here: what takeHeld would find. A named conversation then needs no hand-over check either.
    if (!facts.held) this.mayHaveHeld = false;
    if (named && !this.owned?.has(named) && (!facts.held || !facts.owns)) this.rememberOwned(named, facts.owns);
  }

  private stateOn(chatbotId: number): ChatbotState {
    if (!this.first) this.first = { chatbotId, state: {} };
    if (this.first.chatbotId === chatbotId) return this.first.state;
    this.others ??= new Map();
    let known = this.others.get(chatbotId);
    if (!known) this.others.set(chatbotId, (known = {}));
    return known;
  }

  private knownChatbots(): ChatbotState[] {
    return [...(this.first ? [this.first.state] : []), ...(this.others?.values() ?? [])];
  }

  private rememberOwned(id: string, mine: boolean): void {
    this.owned ??= new Map();
    if (this.owned.size >= OWNERSHIP_CACHE) this.owned.clear();
    this.owned.set(id, mine);
  }

  private async takeHeld(owner: VisitorOnChatbot): Promise<HeldMessage[]> {
    const held = await takeHeldMessages(this.services.sequelize, owner);
    // A full batch may have left more behind: look again on the next beat.
    this.mayHaveHeld = held.length >= HELD_BATCH;
    for (const message of held) this.rememberOwned(message.conversationId, true);
    return held;
  }

  /**
   * The conversation the widget should show: one the visitor did not name but has messages waiting
   * in (an agent invited them), else the one it named, else the newest open one on this chatbot.
   */
  private async conversationFor(owner: VisitorOnChatbot, passed: string | undefined, held: HeldMessage[]): Promise<string | null> {
    const invited = held.findLast((message) => message.conversationId !== passed)?.conversationId;
    const chosen = invited ?? passed;
    if (chosen) {
      this.stateOn(owner.chatbotId).latest = { id: chosen, at: Date.now() };
      return chosen;
    }
    return this.latestOpen(owner);
  }

  /**
   * Cached: "none" is kept until a `held` message says otherwise (a new conversation either comes from
   * this widget, which then names it, or from an invite, which sends `held`); an id is re-read after
   * LATEST_TTL_MS, since it may have been closed meanwhile.
   */
  private async latestOpen(owner: VisitorOnChatbot): Promise<string | null> {
    const known = this.stateOn(owner.chatbotId);
    const cached = known.latest;
    if (cached && (cached.id === null || Date.now() - cached.at < LATEST_TTL_MS)) return cached.id;
    const id = await latestOpenConversation(owner);
    known.latest = { id, at: Date.now() };
    return id;
  }
}
