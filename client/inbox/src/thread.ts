import { conversationPath, explain, post } from './api.js';
import { announce, byId, displayTime, fill, h, toast } from './dom.js';
import { GROUP_LABELS } from './list.js';
import { state, type Controller } from './state.js';
import type { Active, ThreadMessage } from './types.js';

const ROLE_LABELS: Record<string, string> = { assistant: 'AI', agent: 'Agent', system: 'System' };

/** The AI's answer while it streams, keyed by the visitor message it answers. */
let live: { replyTo: number; el: HTMLLIElement; text: Text } | null = null;

const messagesEl = () => byId<HTMLOListElement>('messages');

/** The visitor's verdict on an AI answer, under it; a line without one shows nothing. */
function showRating(line: HTMLLIElement, rating: ThreadMessage['rating']): void {
  if (rating === undefined || line.dataset.rating === (rating ?? '')) return;
  line.querySelector('.rating')?.remove();
  line.dataset.rating = rating ?? '';
  if (rating) line.appendChild(h('span', { class: `rating rating-${rating}` }, rating === 'up' ? '👍 Visitor found this helpful' : '👎 Visitor found this unhelpful'));
}

function bubble(message: ThreadMessage, visitor: string): HTMLLIElement {
  const line = h(
    'li',
    { class: 'msg', 'data-id': message.id, 'data-role': message.role },
    h('span', { class: 'author' }, message.role === 'visitor' ? visitor : ROLE_LABELS[message.role] ?? message.role),
    h('p', { class: 'text' }, message.content),
    h('time', {}, message.at),
  );
  showRating(line, message.rating);
  return line;
}

function statusLine(active: Active): string {
  if (active.status === 'closed') return active.resolution === 'resolved' ? 'Resolved' : 'Closed';
  if (active.handoff_state === 'handoff_pending' && !active.assigned_to) return 'Waiting for an agent';
  if (active.status === 'agent') return active.mine ? 'You are handling this chat' : `Handled by ${active.assigned_to ?? 'an agent'}`;
  return 'The AI is answering';
}

function actionButtons(active: Active, controller: Controller): HTMLButtonElement[] {
  const run = (action: string, done: string) => async (event: Event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    try {
      await post(conversationPath(active.id, action));
      announce(done);
      await Promise.all([controller.refreshThread(), controller.refreshList()]);
    } catch (error) {
      toast(explain(error), 'error');
      button.disabled = false;
    }
  };
  const button = (action: string, label: string, done: string, primary = false) =>
    h('button', { type: 'button', class: primary ? 'primary' : undefined, 'data-action': action, onclick: run(action, done) }, label);
  if (active.status === 'closed') return [button('reopen', 'Reopen', 'Conversation reopened.')];
  const buttons: HTMLButtonElement[] = [];
  if (!(active.status === 'agent' && active.mine)) buttons.push(button('takeover', 'Take over', 'You took over this conversation.', true));
  if (active.status === 'agent') buttons.push(button('release', 'Release to AI', 'Conversation handed back to the AI.'));
  buttons.push(button('resolve', 'Resolve', 'Conversation resolved.'));
  return buttons;
}

/** Draws the open thread; messages already on screen stay (only new ones are added). */
export function renderThread(controller: Controller): void {
  const active = state.active;
  byId('thread-empty').hidden = !!active;
  byId('thread-body').hidden = !active;
  if (!active) return;
  const list = messagesEl();
  if (list.dataset.conversation !== active.id) {
    list.replaceChildren();
    list.dataset.conversation = active.id;

    live = null;
  }
  markLive();
  byId('thread-title').textContent = active.visitor;
  fill(byId('thread-sub'), h('span', { class: `chip group-${active.group}` }, GROUP_LABELS[active.group] ?? active.group), ` ${active.chatbot} · ${statusLine(active)}`);
  byId('thread-body').dataset.status = active.status;
  fill(byId('actions'), actionButtons(active, controller));
  for (const message of active.messages) addMessage(message, false);
  const answers = active.messages.filter((m) => m.role === 'assistant');
  const lastAnswer = answers[answers.length - 1];
  if (live && lastAnswer && lastAnswer.id > live.replyTo) dropLive();
}

/** A line from the fetch or from the socket (`at` as ISO there); a line already shown is left alone. */
export function addMessage(message: ThreadMessage, fromSocket: boolean): void {
  const list = messagesEl();
  const shown = list.querySelector<HTMLLIElement>(`li[data-id="${message.id}"]`);
  if (shown) return showRating(shown, message.rating); // a rating may come after the line
  const line = bubble(fromSocket ? { ...message, at: displayTime(message.at) } : message, state.active?.visitor ?? 'Visitor');
  if (message.role === 'assistant') dropLive();
  // Kept in id order even when the socket and a fetch interleave.
  const later = [...list.querySelectorAll<HTMLLIElement>('li[data-id]')].find((el) => Number(el.dataset.id) > message.id);
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  list.insertBefore(line, later ?? live?.el ?? null);
  if (stick || !fromSocket) list.scrollTop = list.scrollHeight;
  if (fromSocket && message.role === 'visitor') announce(`${state.active?.visitor ?? 'Visitor'} says: ${message.content}`);
}

/** A fragment of the AI's answer as it is generated. */
export function addDelta(replyTo: number, delta: string): void {
  const list = messagesEl();
  if (!live || live.replyTo !== replyTo) {
    dropLive();
    const text = document.createTextNode('');
    const el = h('li', { class: 'msg live', 'data-role': 'assistant', 'data-live': 'true', 'aria-busy': 'true' }, h('span', { class: 'author' }, 'AI (typing)'), h('p', { class: 'text' }, text));
    live = { replyTo, el, text };
    list.appendChild(el);
  }
  live.text.appendData(delta);
  list.scrollTop = list.scrollHeight;
}

function dropLive(): void {
  live?.el.remove();
  live = null;
}

/** `data-live` on the transcript says its AI answers stream in (the thread's channel is subscribed). */
export function markLive(): void {
  const list = messagesEl();
  if (state.watching && state.watching === list.dataset.conversation) list.dataset.live = 'on';
  else delete list.dataset.live;
}
