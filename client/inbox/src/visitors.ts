import { explain, get, post } from './api.js';
import { announce, byId, fill, h, toast } from './dom.js';
import type { Controller } from './state.js';
import type { LiveVisitor, LiveVisitors } from './types.js';

/** Polled while the tab is shown, at the interval the server asks for (`poll_seconds`, never hard-coded). */
let pollSeconds = 15;
let timer: number | undefined;
let shown = false;
/** The visitor whose invite form is open, kept across refreshes. */
let inviting: string | null = null;

async function invite(visitor: LiveVisitor, message: string, controller: Controller): Promise<void> {
  try {
    const reply = await post<{ conversation_id: string; created: boolean; delivery_within_seconds: number }>(`visitors/${encodeURIComponent(visitor.id)}/invite`, { message });
    inviting = null;
    announce('Invitation sent.');
    toast(`Invitation sent; it reaches the visitor within ${reply.delivery_within_seconds} s.`);
    controller.open(reply.conversation_id);
    void refresh(controller);
  } catch (error) {
    toast(explain(error), 'error');
  }
}

function inviteForm(visitor: LiveVisitor, controller: Controller): HTMLFormElement {
  const field = h('textarea', { id: 'invite-message', rows: 2, maxlength: 2000, required: true }, 'Hi! Can I help you find anything?');
  return h(
    'form',
    {
      class: 'invite',
      onsubmit: (event) => {
        event.preventDefault();
        if (field.value.trim()) void invite(visitor, field.value, controller);
      },
    },
    h('label', { for: 'invite-message' }, 'Invitation message'),
    field,
    h('div', {}, h('button', { type: 'submit', class: 'primary' }, 'Send invitation'), h('button', { type: 'button', onclick: () => setInviting(null, controller) }, 'Cancel')),
  );
}

/** Opens the invite form under one visitor (focus goes to its message), or closes it. */
function setInviting(visitorId: string | null, controller: Controller): void {
  inviting = visitorId;
  void refresh(controller).then(() => (visitorId ? byId('invite-message') : byId('tab-visitors')).focus());
}

function row(visitor: LiveVisitor, controller: Controller): HTMLLIElement {
  const where = visitor.title || visitor.page || 'Unknown page';
  return h(
    'li',
    { 'data-visitor': visitor.id },
    h('strong', {}, where),
    h('small', {}, [visitor.chatbot, visitor.country, [visitor.device, visitor.browser, visitor.os].filter(Boolean).join(' '), `${visitor.page_views} views`, `seen ${visitor.last_seen}`].filter(Boolean).join(' · ')),
    visitor.conversation_id
      ? h('button', { type: 'button', class: 'link', onclick: () => controller.open(visitor.conversation_id) }, 'Open chat')
      : inviting === visitor.id
        ? inviteForm(visitor, controller)
        : h('button', { type: 'button', 'data-action': 'invite', onclick: () => setInviting(visitor.id, controller) }, 'Invite to chat'),
  );
}

export async function refresh(controller: Controller): Promise<void> {
  if (!shown) return;
  clearTimeout(timer);
  try {
    const live = await get<LiveVisitors>('visitors?limit=100');
    pollSeconds = Math.max(5, live.poll_seconds || 15);
    // An open invite form survives a refresh only while its visitor is still here.
    if (inviting && !live.visitors.some((v) => v.id === inviting)) inviting = null;
    fill(
      byId('visitors-list'),
      live.visitors.length ? live.visitors.map((v) => row(v, controller)) : h('li', { class: 'empty' }, live.enabled ? 'Nobody is browsing right now.' : 'Live visitors are switched off for every chatbot.'),
    );
    byId('visitors-count').textContent = String(live.total);
  } catch (error) {
    toast(explain(error), 'error');
  }
  if (shown) timer = window.setTimeout(() => void refresh(controller), pollSeconds * 1000);
}

/** The tab became visible or hidden. */
export function showVisitors(visible: boolean, controller: Controller): void {
  shown = visible;
  clearTimeout(timer);
  if (visible) void refresh(controller);
}

/** `visitor.online` / `visitor.offline`: worth a refresh only while someone looks at the list. */
export const visitorsChanged = (controller: Controller) => shown && !inviting && void refresh(controller);
