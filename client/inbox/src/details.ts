import { api, conversationPath, explain, post } from './api.js';
import { announce, byId, fill, h, toast, type Child } from './dom.js';
import { tagChip } from './list.js';
import { state, type Controller } from './state.js';
import { blocking, customer, dismissedTags, dismissTag, revenueAndLead, summary, watchers } from './panels.js';
import type { Active } from './types.js';

const link = (url: string): Child => (/^https?:\/\//i.test(url) ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url) : url);

function facts(active: Active): HTMLDListElement {
  const rows: Array<[string, Child]> = [
    ['Email', active.email],
    ['Phone', active.phone],
    ['Status', active.online ? 'Online now' : active.last_seen ? `Last seen ${active.last_seen}` : 'Offline'],
    ['Chatbot', active.chatbot],
    ['Channel', active.channel],
    ['Assigned to', active.assigned_to],
    ['Page', active.page && link(active.page)],
    ['Referrer', active.referrer && link(active.referrer)],
    ['Location', [active.country, active.timezone].filter(Boolean).join(' · ')],
    ['Language', active.locale],
    ['Device', [active.device, active.browser, active.os].filter(Boolean).join(' · ')],
    ['Page views', active.page_views ? String(active.page_views) : ''],
    ['First seen', active.joined],
    ['Revenue', active.revenue_cents ? active.revenue_label : ''],
    ...active.prechat.map(({ field, value }): [string, Child] => [field, value]),
  ];
  return h('dl', { class: 'facts' }, rows.filter(([, value]) => value).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

async function changeTag(active: Active, tagId: number, attach: boolean, controller: Controller): Promise<void> {
  try {
    if (attach) await post(conversationPath(active.id, 'tags'), { tag_id: tagId });
    else await api('DELETE', conversationPath(active.id, `tags/${tagId}`));
    const name = state.tags.find((t) => t.id === tagId)?.name ?? 'Tag';
    announce(attach ? `Tag ${name} added.` : `Tag ${name} removed.`);
    await Promise.all([controller.refreshThread(), controller.refreshList()]);
  } catch (error) {
    toast(explain(error), 'error');
  }
}

function tags(active: Active, controller: Controller): HTMLElement | null {
  if (!active.tags.length && !state.tags.length) return null; // a workspace without a tag catalogue
  const attached = new Set(active.tags.map((t) => t.id));
  const available = state.tags.filter((t) => !attached.has(t.id));
  const dismissed = new Set(dismissedTags(active.id));
  const suggested = active.tag_suggestions.filter((s) => !attached.has(s.id) && !dismissed.has(s.id));
  return h(
    'section',
    { 'aria-labelledby': 'tags-heading' },
    h('h3', { id: 'tags-heading' }, 'Tags'),
    h(
      'ul',
      { class: 'tags', id: 'conversation-tags' },
      active.tags.map((tag) =>
        h('li', { 'data-tag': tag.id }, tagChip(tag.name, tag.color), h('button', { type: 'button', class: 'icon', 'aria-label': `Remove tag ${tag.name}`, onclick: () => void changeTag(active, tag.id, false, controller) }, '×')),
      ),
    ),
    available.length
      ? h(
          'label',
          { class: 'add-tag' },
          h('span', { class: 'sr-only' }, 'Add a tag'),
          h(
            'select',
            { id: 'add-tag', onchange: (event) => void changeTag(active, Number((event.currentTarget as HTMLSelectElement).value), true, controller) },
            h('option', { value: '' }, 'Add a tag…'),
            available.map((tag) => h('option', { value: tag.id }, tag.name)),
          ),
        )
      : null,
    suggested.length
      ? h(
          'p',
          { class: 'suggested' },
          'Suggested: ',
          suggested.map((s) =>
            h(
              'span',
              { class: 'suggestion-tag' },
              h('button', { type: 'button', class: 'link', title: s.reason, 'aria-label': `Apply suggested tag ${s.name}`, onclick: () => void changeTag(active, s.id, true, controller) }, `+ ${s.name}`),
              h('button', { type: 'button', class: 'icon', 'aria-label': `Dismiss suggested tag ${s.name}`, onclick: () => (dismissTag(active.id, s.id), renderDetails(controller)) }, '×'),
            ),
          ),
        )
      : null,
  );
}

function notes(active: Active): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'notes-heading' },
    h('h3', { id: 'notes-heading' }, `Notes (${active.notes.length})`),
    active.notes.length
      ? h('ol', { class: 'notes', id: 'notes' }, active.notes.map((note) => h('li', { 'data-id': note.id }, h('p', {}, note.body), h('small', {}, `${note.author} · ${note.at}`))))
      : h('p', { class: 'muted' }, 'Write a note with "Internal note" in the composer; visitors never see notes.'),
  );
}

function journey(active: Active): HTMLElement | null {
  if (!active.journey.length) return null;
  return h(
    'section',
    { 'aria-labelledby': 'journey-heading' },
    h('h3', { id: 'journey-heading' }, 'Pages visited'),
    h('ol', { class: 'journey' }, active.journey.map((view) => h('li', {}, link(view.url), view.at ? h('small', {}, ` ${view.at}`) : null))),
  );
}

export function renderDetails(controller: Controller): void {
  const active = state.active;
  const panel = byId('visitor-panel');
  if (!active) return fill(panel, h('p', { class: 'muted' }, 'Open a conversation to see who you are talking to.'));
  // A live refresh never takes a field from under the agent's fingers: it waits for the next one.
  const focused = document.activeElement;
  if (focused && panel.contains(focused) && focused.matches('input, select, textarea') && panel.dataset.conversation === active.id) return;
  panel.dataset.conversation = active.id;
  fill(
    panel,
    h('h2', { class: 'visitor-name' }, active.visitor),
    watchers(active, state.user?.id ?? 0),
    summary(active, controller),
    facts(active),
    customer(active),
    tags(active, controller),
    revenueAndLead(active, controller),
    notes(active),
    blocking(active, controller),
    journey(active),
  );
}

/** The right column's two tabs, with arrow-key movement between them (WAI-ARIA tabs pattern). */
export function setUpTabs(onShow: (tab: string) => void): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
  const select = (tab: HTMLButtonElement) => {
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      byId(other.getAttribute('aria-controls')!).hidden = !selected;
    }
    onShow(tab.id);
  };
  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length]!;
      next.focus();
      select(next);
    });
  }
}
