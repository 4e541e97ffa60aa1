import { alertIfHidden, unlockSound, type Alert } from './alerts.js';
import { ApiError, conversationPath, explain, forgetSession, get, post, ROOT, storedToken, storeSession, tokenPastHalfLife, whenUnauthorized } from './api.js';
import { renderCanned, resetComposer, setUpComposer, switchComposer } from './composer.js';
import { announce, byId, debounce, toast } from './dom.js';
import { setUpAvailability } from './availability.js';
import { renderDetails, setUpTabs } from './details.js';
import { neighbour, renderFilters, renderList, threadUrl } from './list.js';
import { signIn } from './login.js';
import { markThreadOpen, setUpDrawer } from './drawer.js';
import { disablePush, enablePush, setUpPush } from './push.js';
import { Realtime } from './realtime.js';
import { setUpSettings } from './settings.js';
import { state, type Controller } from './state.js';
import { addDelta, addMessage, markLive, renderThread } from './thread.js';
import { clearVisitorTyping, showVisitorTyping, TypingSignal } from './typing.js';
import type { Active, Agent, Canned, Envelope, Filter, InboxPage, Session, Tag } from './types.js';
import { showVisitors, visitorsChanged } from './visitors.js';

const FILTERS: readonly Filter[] = ['all', 'waiting', 'mine', 'team', 'ai', 'human', 'resolved'];
const THREAD_PATH = /^conversations\/([0-9a-f-]{36})$/i;

let realtime: Realtime | null = null;
let rotation: number | undefined;
let signedIn = false;
/** Replies can overtake each other; only the newest request of each kind may paint. */
let listRequest = 0;
let threadRequest = 0;
/** The open thread's last event sequence number; a jump means an event was lost, so fetch. */
let lastSeq: number | null = null;
/** Bumped when the filter or the search changes: pages of the list before it are dropped. */
let listGeneration = 0;
/** The agent loaded more than the first page of this list. */
let extended = false;

/** The list's request: the filter, the search if any, and where the page starts. */
function listPath(before?: string | null): string {
  const query = new URLSearchParams({ filter: state.filter });
  if (state.q) query.set('q', state.q);
  if (before) query.set('before', before);
  return `inbox?${query}`;
}

function applyPage(page: InboxPage, withList: boolean): void {
  if (withList) {
    if (extended) {
      // A live refresh brings the first page again; the older rows the agent loaded stay below it.
      const fresh = new Set(page.conversations.map((item) => item.id));
      state.items = [...page.conversations, ...state.items.filter((item) => !fresh.has(item.id))];
    } else {
      state.items = page.conversations;
      state.nextCursor = page.next_cursor;
    }
    renderList(controller);
  }
  renderFilters(page, controller);
}

async function refreshList(): Promise<void> {
  const ticket = ++listRequest;
  const page = await get<InboxPage>(listPath()).catch(report);
  if (page && ticket === listRequest) applyPage(page, true);
}

/** Another list (filter or search): from its first page. */
function resetList(): void {
  listGeneration++;
  extended = false;
  void refreshList();
}

/** "Load more": the page after the last one listed, appended. */
async function loadMore(): Promise<void> {
  const generation = listGeneration;
  const more = byId<HTMLButtonElement>('more');
  more.disabled = true;
  const page = await get<InboxPage>(listPath(state.nextCursor)).catch(report);
  more.disabled = false;
  if (!page || generation !== listGeneration) return;
  const known = new Set(state.items.map((item) => item.id));
  state.items.push(...page.conversations.filter((item) => !known.has(item.id)));
  state.nextCursor = page.next_cursor;
  extended = true;
  renderList(controller);
}

/** The search box: searches once the text is long enough for the server (3 characters), else lists all. */
function searchChanged(): void {
  const text = byId<HTMLInputElement>('search').value.trim();
  const q = text.length >= 3 ? text : '';
  if (q === state.q) return;
  state.q = q;
  resetList();
}

async function refreshThread(): Promise<void> {
  const id = state.openId;
  const ticket = ++threadRequest;
  if (!id) return paintThread();
  const page = await get<InboxPage>(conversationPath(id)).catch(report);
  if (!page || ticket !== threadRequest || id !== state.openId) return;
  if (!page.active) {
    toast('That conversation does not exist in this workspace.', 'error');
    return open(null);
  }
  state.active = page.active;
  paintThread();
  applyPage(page, false);
  // Opening marks it read: the row's unread badge goes now, not at the next list refresh.
  const row = state.items.find((item) => item.id === id);
  if (row?.unread) {
    row.unread = 0;
    renderList(controller);
  }
}

function paintThread(): void {
  markThreadOpen(!!state.openId);
  renderThread(controller);
  renderDetails(controller);
}

function report(error: unknown): undefined {
  if (!(error instanceof ApiError && error.status === 401)) toast(explain(error), 'error');
  return undefined;
}

function open(id: string | null, push = true): void {
  if (id !== state.openId) {
    switchComposer(state.openId, id);
    state.openId = id;
    state.active = null;
    state.watching = null;
    lastSeq = null;
    clearVisitorTyping();
    realtime?.watch(id);
    renderList(controller);
    paintThread();
  }
  const url = threadUrl(id, state.filter);
  if (push && url !== location.pathname + location.search) history.pushState(null, '', url);
  void refreshThread();
}

function setFilter(filter: Filter): void {
  state.filter = filter;
  history.replaceState(null, '', threadUrl(state.openId, filter));
  resetList();
}

const controller: Controller = { open, setFilter, refreshThread, refreshList };
const listSoon = debounce(() => void refreshList(), 250);
const threadSoon = debounce(() => void refreshThread(), 120);
const visitorsSoon = debounce(() => visitorsChanged(controller), 1000);

/** Realtime events carry little: they say what changed, and the app fetches (or, for lines, shows) it. */
function onEvent({ event, data, seq }: Envelope): void {
  if (event === 'visitor.online' || event === 'visitor.offline') {
    visitorsSoon();
    listSoon(); // the online dots
    return;
  }
  const id = String(data.conversation_id ?? data.id ?? '');
  const isOpen = id !== '' && id === state.openId;
  if (isOpen && Number.isFinite(seq)) {
    const gap = lastSeq !== null && seq > lastSeq + 1;
    lastSeq = Math.max(lastSeq ?? seq, seq);
    if (gap) threadSoon();
  }
  if (event === 'notification') return alertIfHidden(data as Alert);
  // The router (by: null) gave this agent a conversation: said at once, whatever the filter shows.
  if (event === 'conversation.assigned' && data.by === null) assignedToMe(id);
  // A waiting visitor's place in the queue: the widget's business, nothing to refetch here.
  if (event === 'queue.position') return;
  if (event === 'typing') {
    if (isOpen) showVisitorTyping(data);
    return;
  }
  // Who else has it open: shown in the details, nothing to fetch.
  if (event === 'conversation.watchers') {
    if (isOpen && state.active && Array.isArray(data.watchers)) {
      state.active.watchers = data.watchers as Active['watchers'];
      renderDetails(controller);
    }
    return;
  }
  if (event === 'message.delta') {
    if (isOpen && typeof data.delta === 'string') addDelta(Number(data.reply_to), data.delta);
    return;
  }
  listSoon();
  if (event === 'conversation.created') announce('A new conversation started.');
  if (!isOpen) return;
  if (event === 'message.created' && typeof data.content === 'string') {
    if (data.role === 'visitor') clearVisitorTyping();
    addMessage({ id: Number(data.id), role: String(data.role), content: data.content, at: String(data.at) }, true);
  }
  threadSoon();
}

function assignedToMe(conversationId: string): void {
  const visitor = state.items.find((item) => item.id === conversationId)?.visitor ?? 'A visitor';
  const text = `Assigned to you: ${visitor}. It is in Mine.`;
  toast(text);
  announce(text);
}

function connection(online: boolean): void {
  const el = byId('connection');
  el.dataset.online = String(online);
  el.textContent = online ? 'Live' : 'Reconnecting…';
  if (!online) {
    state.watching = null;
    markLive();
  }
}

async function loadCatalogue(): Promise<void> {
  try {
    const [tags, canned] = await Promise.all([get<{ tags: Tag[] }>('tags'), get<{ canned: Canned[] }>('canned')]);
    state.tags = tags.tags;
    state.canned = canned.canned;
  } catch (error) {
    report(error); // the inbox works without them; only the pickers stay empty
  }
  renderCanned();
}

function readUrl(): void {
  const path = location.pathname.startsWith(ROOT.pathname) ? location.pathname.slice(ROOT.pathname.length) : '';
  const filter = new URLSearchParams(location.search).get('filter') as Filter | null;
  state.filter = filter && FILTERS.includes(filter) ? filter : 'all';
  state.openId = THREAD_PATH.exec(path)?.[1]?.toLowerCase() ?? null;
}

async function start(user: Agent, company: { id: number; name: string }): Promise<void> {
  signedIn = true;
  state.user = user;
  state.companyId = company.id;
  byId('company-name').textContent = company.name;
  byId('user-name').textContent = `${user.name} (${user.role})`;
  setUpAvailability();
  byId('login').hidden = true;
  byId('app').hidden = false;
  const opening = state.openId;
  const ticket = ++threadRequest;
  extended = false;
  const [page] = await Promise.all([
    get<InboxPage>(`${listPath()}${opening ? `&conversation=${opening}` : ''}`).catch(report),
    loadCatalogue(),
  ]);
  if (page) {
    applyPage(page, true);
    if (ticket === threadRequest && opening === state.openId) {
      state.active = page.active;
      paintThread();
    }
  }
  realtime = new Realtime(company.id, user.id, {
    event: onEvent,
    connected: () => void Promise.all([refreshList(), refreshThread()]),
    state: connection,
    watching: (id) => {
      state.watching = id;
      markLive();
    },
    refused: () => void signedOut('Your session has ended. Sign in again.'),
  });
  realtime.watch(state.openId);
  void realtime.start();
  // Permission given before: this device's subscription is saved again (it may be new, or moved).
  void enablePush(false).catch(() => undefined);
  rotation = window.setInterval(() => void rotateToken(), 3_600_000);
  if (byId('tab-visitors').getAttribute('aria-selected') === 'true') showVisitors(true, controller);
}

/** The token is gone or refused: back to the sign-in form, and into the inbox again after it. */
async function signedOut(notice = ''): Promise<void> {
  if (!signedIn) return;
  signedIn = false;
  forgetSession();
  void disablePush(false);
  realtime?.stop();
  realtime = null;
  clearInterval(rotation);
  showVisitors(false, controller);
  resetComposer();
  state.active = null;
  const session = await signIn(notice);
  await start(session.user, session.company);
}

/** A tab left open for weeks keeps working: past half its life, the token is exchanged for a fresh one. */
async function rotateToken(): Promise<void> {
  if (tokenPastHalfLife()) await post<Session>('refresh').then(storeSession, () => undefined);
}

/** The stored token's session, or null when there is none or it no longer works. */
async function resume(): Promise<Pick<Session, 'user' | 'company'> | null> {
  if (!storedToken()) return null;
  try {
    const me = await get<Pick<Session, 'user' | 'company'>>('me');
    await rotateToken();
    return me;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) forgetSession();
    else toast(explain(error), 'error');
    return null;
  }
}

function shortcuts(event: KeyboardEvent): void {
  const target = event.target as HTMLElement;
  if (event.altKey || event.ctrlKey || event.metaKey || target.closest('input, textarea, select, [contenteditable]') || !signedIn) return;
  if (event.key === 'j' || event.key === 'k') {
    const next = neighbour(event.key === 'j' ? 1 : -1);
    if (next) open(next);
  } else if (event.key === 'r' && state.active) {
    event.preventDefault();
    byId('draft').focus();
  }
}

async function boot(): Promise<void> {
  // The icon is fetched lazily, maybe after pushState moved the page's URL: pin its address now.
  const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (icon) icon.href = icon.href;
  whenUnauthorized(() => void signedOut('Your session has ended. Sign in again.'));
  setUpComposer(controller);
  setUpTabs((tab) => showVisitors(tab === 'tab-visitors', controller));
  document.addEventListener('keydown', shortcuts);
  window.addEventListener('popstate', () => {
    const before = state.openId;
    readUrl();
    const after = state.openId;
    state.openId = before;
    open(after, false);
    void refreshList();
  });
  byId('search').addEventListener('input', debounce(searchChanged, 300));
  const typing = new TypingSignal((id, on) => realtime?.typing(id, on));
  byId('draft').addEventListener('input', (event) => {
    const note = byId<HTMLInputElement>('mode-note').checked;
    typing.changed(state.openId, note ? null : (event.target as HTMLTextAreaElement).value);
  });
  byId('more').addEventListener('click', () => void loadMore());
  byId('sign-out').addEventListener('click', () => {
    void disablePush()
      .then(() => post('logout'))
      .catch(() => undefined)
      .then(() => signedOut());
  });
  setUpPush((id) => open(id));
  setUpDrawer(() => open(null));
  setUpSettings();
  unlockSound();
  readUrl();
  const session = (await resume()) ?? (await signIn());
  await start(session.user, session.company);
}

void boot();
