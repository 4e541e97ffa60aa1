import { byId } from './dom.js';

/**
 * "<visitor> is typing" under the open thread, with their draft when the chatbot tracks behaviour.
 * The server ends a typing state itself (typing: false after 5 s without a repeat), so the line
 * stays until it says so, the visitor's message arrives, or another thread opens.
 */
export function showVisitorTyping(data: Record<string, unknown>): void {
  if (data.who !== 'visitor') return;
  const el = byId('visitor-typing');
  const on = data.typing === true;
  el.hidden = !on;
  el.textContent = on ? `${String(data.name ?? 'The visitor')} is typing…${typeof data.preview === 'string' ? ` “${data.preview}”` : ''}` : '';
}

export const clearVisitorTyping = (): void => showVisitorTyping({ who: 'visitor', typing: false });

// The server passes one start per 2 s per socket; repeating a little less often never loses one.
const REPEAT_MS = 2_500;

/** The agent's own typing: a start repeated while they write, a stop once when the draft empties or goes. */
export class TypingSignal {
  private conversation: string | null = null;
  private sentAt = 0;

  constructor(private readonly send: (conversationId: string, typing: boolean) => void) {}

  /** The draft of `conversationId` now reads `text` (`null`: no thread, or a note that the visitor never sees). */
  changed(conversationId: string | null, text: string | null): void {
    const typing = !!conversationId && !!text?.trim();
    if (this.conversation && (!typing || this.conversation !== conversationId)) {
      this.send(this.conversation, false);
      this.conversation = null;
    }
    if (!typing || (Date.now() - this.sentAt < REPEAT_MS && this.conversation === conversationId)) return;
    this.conversation = conversationId;
    this.sentAt = Date.now();
    this.send(conversationId, true);
  }
}
