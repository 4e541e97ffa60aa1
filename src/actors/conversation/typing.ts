import { visitorDisplayName } from '../../domain/visitors/displayName';
import { presentTyping } from '../../presenters/realtimeEvents';
import { conversationChannel } from '../../realtime/channels';
import type { ConversationActor } from './actor';
import type { TypingSignal } from './protocol';

/** A typing state with no repeat for this long ends, and the actor says so (`typing: false`). */
export const TYPING_LAPSE_MS = 5_000;

interface Typist {
  who: TypingSignal['who'];
  name: string;
  preview: string | undefined;
  lapse: NodeJS.Timeout;
}

/**
 * Who is typing in one conversation, kept by its actor for as long as it is active. Only changes go
 * out (a start, a new preview, a stop or a lapse), so a typist's repeats every few seconds cost no fan-out.
 */
export class TypingState {
  private readonly typists = new Map<string, Typist>();

  constructor(
    private readonly actor: ConversationActor,
    private readonly lapseMs = TYPING_LAPSE_MS,
  ) {}

  async signal(signal: TypingSignal): Promise<void> {
    const conversation = this.actor.record.row;
    if (!conversation || conversation.blocked || conversation.status === 'closed') return;
    // The socket layer checked who may type here; a signal for another workspace's conversation is dropped all the same.
    const ours = signal.who === 'visitor' ? conversation.chatbotId === signal.chatbotId : conversation.companyId === signal.companyId;
    if (!ours) return;
    const key = signal.who === 'visitor' ? 'visitor' : `agent:${signal.userId}`;
    const known = this.typists.get(key);
    if (!signal.typing) {
      if (known) this.end(key, known);
      return;
    }
    const name = signal.who === 'visitor' ? visitorDisplayName({ name: conversation.visitorName, email: conversation.visitorEmail, key: conversation.visitorKey }) : signal.name;
    const preview = signal.who === 'visitor' && signal.preview && (await this.actor.settings()).behavior_tracking ? signal.preview : undefined;
    if (known) clearTimeout(known.lapse);
    const typist: Typist = { who: signal.who, name, preview, lapse: setTimeout(() => this.end(key, typist), this.lapseMs).unref() };
    this.typists.set(key, typist);
    if (!known || known.preview !== preview) this.send(signal.who, name, true, preview);
  }

  /**
   * The actor passivates or its shard moves: every state ends now rather than lingering on clients with
   * no owner to lapse it. A typist still typing starts afresh with their next repeat at the new owner.
   */
  endAll(): void {
    for (const [key, typist] of [...this.typists]) this.end(key, typist);
  }

  private end(key: string, typist: Typist): void {
    clearTimeout(typist.lapse);
    if (this.typists.get(key) !== typist) return;
    this.typists.delete(key);
    this.send(typist.who, typist.name, false);
  }

  private send(who: TypingSignal['who'], name: string, typing: boolean, preview?: string): void {
    const conversation = this.actor.record.row;
    if (!conversation) return;
    const data = presentTyping(conversation.publicId, who, name, typing, preview);
    // Not a durable event: it carries the thread's current `seq` (as deltas do) and does not raise it.
    this.actor.deps.realtime.emit(conversationChannel(conversation.publicId), 'typing', data, Number(conversation.seq));
  }
}
