// The whole view layer: elements built by hand. Strings always become text nodes, never markup,
// so a visitor's message cannot inject HTML into the agent's page.

type Attr = string | number | boolean | null | undefined | ((event: Event) => void);
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, Attr> = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Array<Child | Child[]>): void {
  parent.replaceChildren();
  append(parent, children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el as T;
}

/** Runs `work` at most once per `ms`, after the last call (a burst of events costs one fetch). */
export function debounce(work: () => void, ms: number): () => void {
  let timer: number | undefined;
  return () => {
    clearTimeout(timer);
    timer = window.setTimeout(work, ms);
  };
}

const announcer = () => byId('announce');

/** Screen readers hear this once (a polite live region); nobody sees it. */
export function announce(text: string): void {
  const region = announcer();
  region.textContent = '';
  // A fresh text node after a tick, so the same sentence twice is announced twice.
  window.setTimeout(() => (region.textContent = text), 30);
}

let toastTimer: number | undefined;

/** A short visible status line (errors, confirmations), also read out by screen readers. */
export function toast(text: string, kind: 'error' | 'info' = 'info'): void {
  const el = byId('toast');
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (el.hidden = true), kind === 'error' ? 8000 : 4000);
}

/** "Nov 21, 2026 14:05" in UTC: the agent API's display time, for lines that arrive over the socket. */
export function displayTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const month = date.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${month} ${date.getUTCDate()}, ${date.getUTCFullYear()} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}
