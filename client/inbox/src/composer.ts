import { ApiError, conversationPath, explain, post } from './api.js';
import { whyNoSuggestion, whyNotEnhanced } from './assistReasons.js';
import { announce, byId, fill, h, toast } from './dom.js';
import { state, type Controller } from './state.js';
import { addMessage } from './thread.js';
import type { ThreadMessage } from './types.js';

const draft = () => byId<HTMLTextAreaElement>('draft');
const isNote = () => byId<HTMLInputElement>('mode-note').checked;

/** Unsent text per thread, so switching conversations loses nothing. */
const drafts = new Map<string, string>();
/** The last reply that may not have arrived: resending the same text reuses its id, so it is never sent twice. */
let pending: { conversation: string; text: string; clientId: string } | null = null;
/** The suggestion on screen, and whether the agent put it in the draft (for the outcome report). */
let suggestion: { id: number; text: string; inserted: boolean } | null = null;

const clientId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`);

function reportOutcome(outcome: 'inserted' | 'edited' | 'dismissed'): void {
  if (suggestion) void post(`suggestion/${suggestion.id}/outcome`, { outcome }).catch(() => undefined);
}

function showSuggestion(next: typeof suggestion): void {
  suggestion = next;
  byId('suggestion').hidden = !next;
  byId('suggestion-text').textContent = next?.text ?? '';
}

/** Puts text where the cursor is (replacing a selection), keeping the browser's undo history when it can. */
function insert(text: string, replaceAll = false): void {
  const area = draft();
  area.focus();
  if (replaceAll) area.select();
  if (!document.execCommand('insertText', false, text)) area.setRangeText(text, area.selectionStart, area.selectionEnd, 'end');
  area.dispatchEvent(new Event('input'));
}

/** Called when the open thread changes: keeps the old draft, brings back the new one. */
export function switchComposer(previous: string | null, next: string | null): void {
  if (previous) drafts.set(previous, draft().value);
  draft().value = next ? drafts.get(next) ?? '' : '';
  showSuggestion(null);
}

/** Signing out: nothing one agent wrote stays for the next person at this screen. */
export function resetComposer(): void {
  drafts.clear();
  pending = null;
  draft().value = '';
  showSuggestion(null);
}

export function renderCanned(): void {
  fill(
    byId('canned'),
    h('option', { value: '' }, 'Canned replies…'),
    state.canned.map((reply) => h('option', { value: reply.id }, reply.shortcut ? `${reply.title} (/${reply.shortcut.replace(/^\//, '')})` : reply.title)),
  );
}

function useCanned(id: number): void {
  const reply = state.canned.find((c) => c.id === id);
  if (!reply) return;
  insert(reply.body);
  void post(`canned/${id}/used`).catch(() => undefined);
}

/** "/shortcut" then Tab expands to that canned reply. */
function expandShortcut(): boolean {
  const area = draft();
  const match = /(^|\s)\/([\w-]+)$/.exec(area.value.slice(0, area.selectionStart));
  const reply = match && state.canned.find((c) => c.shortcut.replace(/^\//, '').toLowerCase() === match[2]!.toLowerCase());
  if (!match || !reply) return false;
  area.setSelectionRange(area.selectionStart - match[2]!.length - 1, area.selectionStart);
  useCanned(reply.id);
  return true;
}

async function send(controller: Controller): Promise<void> {
  const id = state.openId;
  const text = draft().value;
  if (!id || !text.trim()) return;
  const button = byId<HTMLButtonElement>('send');
  button.disabled = true;
  // Cleared at once, so the agent can write on; a failed send puts the words back.
  draft().value = '';
  try {
    if (isNote()) {
      await post(conversationPath(id, 'notes'), { body: text });
      announce('Note added.');
    } else {
      if (!pending || pending.conversation !== id || pending.text !== text) pending = { conversation: id, text, clientId: clientId() };
      const { message } = await post<{ message: ThreadMessage }>(conversationPath(id, 'reply'), { body: text, client_id: pending.clientId });
      pending = null;
      if (suggestion?.inserted) reportOutcome(text.trim() === suggestion.text.trim() ? 'inserted' : 'edited');
      showSuggestion(null);
      if (state.openId === id) addMessage(message, false);
    }
    drafts.delete(id);
    await Promise.all([controller.refreshThread(), controller.refreshList()]);
  } catch (error) {
    // A refused reply (422) will be refused again: a new id for the corrected text.
    if (error instanceof ApiError && error.status !== 0 && error.status < 500) pending = null;
    if (state.openId === id && !draft().value) draft().value = text;
    else drafts.set(id, text);
    toast(explain(error), 'error');
  } finally {
    button.disabled = false;
  }
}

async function suggest(): Promise<void> {
  const id = state.openId;
  if (!id) return;
  const button = byId<HTMLButtonElement>('suggest');
  button.disabled = true;
  try {
    const reply = await post<{ id: number; suggestion: string | null; reason?: string | null }>(conversationPath(id, 'suggest'), { draft: draft().value || undefined });
    if (state.openId !== id) return;
    if (reply.suggestion === null) toast(whyNoSuggestion(reply.reason));
    else {
      showSuggestion({ id: reply.id, text: reply.suggestion, inserted: false });
      announce(`Suggestion: ${reply.suggestion}`);
    }
  } catch (error) {
    toast(explain(error), 'error');
  } finally {
    button.disabled = false;
  }
}

async function enhance(): Promise<void> {
  const id = state.openId;
  const body = draft().value;
  if (!id) return;
  if (!body.trim()) return toast('Write a draft first, then enhance it.');
  const button = byId<HTMLButtonElement>('enhance');
  button.disabled = true;
  try {
    const mode = byId<HTMLSelectElement>('enhance-mode').value;
    const reply = await post<{ text: string; enhanced: boolean; reason?: string | null }>(conversationPath(id, 'enhance'), { body, mode });
    if (state.openId !== id || draft().value !== body) return; // the agent kept typing: their words win
    if (reply.enhanced) {
      insert(reply.text, true);
      announce('Draft enhanced. Undo with Control Z.');
    } else toast(whyNotEnhanced(reply.reason));
  } catch (error) {
    toast(explain(error), 'error');
  } finally {
    button.disabled = false;
  }
}

export function setUpComposer(controller: Controller): void {
  const area = draft();
  byId('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    void send(controller);
  });
  area.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send(controller);
    } else if (event.key === 'Tab' && !event.shiftKey && expandShortcut()) event.preventDefault();
  });
  for (const radio of ['mode-reply', 'mode-note']) {
    byId(radio).addEventListener('change', () => {
      byId('composer').dataset.mode = isNote() ? 'note' : 'reply';
      area.placeholder = isNote() ? 'Internal note, only agents see it' : 'Reply to the visitor (Enter sends, Shift+Enter adds a line)';
    });
  }
  byId<HTMLSelectElement>('canned').addEventListener('change', (event) => {
    const select = event.currentTarget as HTMLSelectElement;
    if (select.value) useCanned(Number(select.value));
    select.value = '';
  });
  byId('suggest').addEventListener('click', () => void suggest());
  byId('enhance').addEventListener('click', () => void enhance());
  byId('suggestion-insert').addEventListener('click', () => {
    if (!suggestion) return;
    insert(suggestion.text, true);
    suggestion.inserted = true;
    byId('suggestion').hidden = true;
  });
  byId('suggestion-dismiss').addEventListener('click', () => {
    reportOutcome('dismissed');
    showSuggestion(null);
    area.focus();
  });
}
