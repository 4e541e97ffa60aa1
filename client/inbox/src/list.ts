import { byId, fill, h } from './dom.js';
import { ROOT } from './api.js';
import { state, type Controller } from './state.js';
import type { Counts, Filter, InboxItem } from './types.js';

const FILTERS: Array<[Filter, string]> = [
  ['all', 'All open'],
  ['waiting', 'Waiting'],
  ['mine', 'Mine'],
  ['team', 'Team'],
  ['ai', 'AI'],
  ['human', 'Human'],
  ['resolved', 'Resolved'],
];

const countOf = (filter: Filter, { counts, groups }: Counts): number =>
  filter === 'all' ? counts.all : filter === 'human' ? counts.human : groups[filter];

export const GROUP_LABELS: Record<string, string> = { waiting: 'Waiting', mine: 'Mine', team: 'Team', ai: 'AI', resolved: 'Resolved' };

export const threadUrl = (id: string | null, filter: Filter): string => {
  const url = new URL(id ? `conversations/${encodeURIComponent(id)}` : '../inbox', ROOT);
  if (filter !== 'all') url.searchParams.set('filter', filter);
  return url.pathname + url.search;
};

export function renderFilters(totals: Counts, controller: Controller): void {
  fill(
    byId('filters'),
    FILTERS.map(([filter, label]) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'filter', 'data-filter': filter, 'aria-pressed': String(state.filter === filter), onclick: () => controller.setFilter(filter) },
          h('span', {}, label),
          h('span', { class: 'count' }, String(countOf(filter, totals))),
        ),
      ),
    ),
  );
  document.title = totals.counts.unread ? `(${totals.counts.unread}) Parley inbox` : 'Parley inbox';
}

function row(item: InboxItem, controller: Controller): HTMLLIElement {
  const open = item.id === state.openId;
  const waiting = item.waiting_seconds !== null ? `waiting ${Math.floor(item.waiting_seconds / 60)}m` : '';
  return h(
    'li',
    { 'data-id': item.id, 'data-group': item.group, class: item.unread ? 'unread' : undefined },
    h(
      'a',
      {
        href: threadUrl(item.id, state.filter),
        'aria-current': open ? 'true' : undefined,
        onclick: (event) => {
          const click = event as MouseEvent;
          if (click.ctrlKey || click.metaKey || click.shiftKey || click.button !== 0) return; // a new tab is the browser's business
          event.preventDefault();
          controller.open(item.id);
        },
      },
      h(
        'span',
        { class: 'who' },
        h('span', { class: item.online ? 'dot online' : 'dot', title: item.online ? 'Online' : 'Offline' }),
        h('strong', {}, item.visitor),
        item.online ? h('span', { class: 'sr-only' }, '(online)') : null,
        item.unread ? h('span', { class: 'badge' }, String(item.unread), h('span', { class: 'sr-only' }, ' unread')) : null,
        h('span', { class: 'when' }, item.last_at),
      ),
      h('span', { class: 'preview' }, item.preview),
      h(
        'span',
        { class: 'meta' },
        h('span', { class: `chip group-${item.group}` }, GROUP_LABELS[item.group] ?? item.group),
        item.assigned_to && !item.mine ? h('span', {}, item.assigned_to) : null,
        waiting ? h('span', { class: 'warn' }, waiting) : null,
        item.tags.map((tag) => tagChip(tag.name, tag.color)),
      ),
    ),
  );
}

export function tagChip(name: string, color: string): HTMLSpanElement {
  const chip = h('span', { class: 'tag' }, name);
  if (/^#[0-9a-f]{3,8}$/i.test(color)) chip.style.setProperty('--tag', color);
  return chip;
}

/** Re-rendered whole (60 rows a page); keyboard focus stays on the row it was on. */
export function renderList(controller: Controller): void {
  const list = byId('list');
  const focused = (document.activeElement?.closest('#list li') as HTMLElement | null)?.dataset.id;
  if (!state.items.length) {
    fill(list, h('li', { class: 'empty' }, state.q ? 'No conversation matches.' : state.filter === 'all' ? 'No open conversations.' : 'Nothing here.'));
    byId('more').hidden = true;
    return;
  }
  fill(list, state.items.map((item) => row(item, controller)));
  byId('more').hidden = state.nextCursor === null;
  if (focused) list.querySelector<HTMLElement>(`li[data-id="${CSS.escape(focused)}"] a`)?.focus();
}

/** Moves the open thread up or down the list (keys j and k). */
export function neighbour(step: 1 | -1): string | null {
  const index = state.items.findIndex((item) => item.id === state.openId);
  const next = state.items[index === -1 ? 0 : index + step];
  return next?.id ?? null;
}
