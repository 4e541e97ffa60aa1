import { conversationPath, explain, get, post } from './api.js';
import { announce, h, toast, type Child } from './dom.js';
import type { Controller } from './state.js';
import type { Active } from './types.js';

// The details column's working panels: summary with intent, customer context, revenue, lead,
// block, and who else has the conversation open. Each action refreshes the thread, so the panel
// always shows what the server stored.

async function act(work: () => Promise<unknown>, done: string, controller: Controller): Promise<void> {
  try {
    await work();
    announce(done);
    toast(done);
    await controller.refreshThread();
  } catch (error) {
    toast(explain(error), 'error');
  }
}

const section = (id: string, title: string, ...children: Array<Child | Child[]>) =>
  h('section', { 'aria-labelledby': `${id}-heading`, class: 'panel-part', id }, h('h3', { id: `${id}-heading` }, title), ...children);

export function watchers(active: Active, userId: number): HTMLElement | null {
  const others = active.watchers.filter((w) => w.id !== userId);
  return others.length ? h('p', { class: 'watchers', id: 'watchers' }, `Also open by ${others.map((w) => w.name).join(', ')}`) : null;
}

export function summary(active: Active, controller: Controller): HTMLElement {
  const run = () => act(() => post(conversationPath(active.id, 'summary')), 'Summary updated.', controller);
  return section(
    'summary',
    'Summary',
    active.summary ? h('p', { class: 'summary' }, active.summary) : h('p', { class: 'muted' }, 'No summary yet.'),
    active.intent ? h('p', {}, 'Intent: ', h('span', { class: 'chip', id: 'intent' }, active.intent)) : null,
    h('button', { type: 'button', id: 'summarise', onclick: () => void run() }, active.summary ? 'Summarise again' : 'Summarise'),
  );
}

export function revenueAndLead(active: Active, controller: Controller): HTMLElement {
  const save = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const amount = (form.elements.namedItem('amount') as HTMLInputElement).value.trim();
    const currency = (form.elements.namedItem('currency') as HTMLInputElement).value.trim();
    void act(() => post(conversationPath(active.id, 'revenue'), { amount: amount === '' ? null : Number(amount), currency: currency || undefined }), 'Revenue saved.', controller);
  };
  return section(
    'deal',
    'Revenue and lead',
    h(
      'form',
      { class: 'inline', onsubmit: save },
      h('label', {}, h('span', { class: 'sr-only' }, 'Revenue amount'), h('input', { name: 'amount', type: 'number', min: 0, step: '0.01', inputmode: 'decimal', value: active.revenue_cents ? active.revenue_cents / 100 : '', placeholder: '0.00' })),
      h('label', {}, h('span', { class: 'sr-only' }, 'Currency'), h('input', { name: 'currency', maxlength: 3, size: 4, value: active.revenue_currency ?? 'USD' })),
      h('button', { type: 'submit' }, 'Save revenue'),
    ),
    h(
      'p',
      {},
      active.lead_id ? `Lead #${active.lead_id} (${active.lead_status}) ` : 'Not a lead yet. ',
      h('button', { type: 'button', id: 'save-lead', onclick: () => void act(() => post(conversationPath(active.id, 'lead')), 'Lead saved.', controller) }, active.lead_id ? 'Update lead' : 'Save as lead'),
    ),
  );
}

export function blocking(active: Active, controller: Controller): HTMLElement {
  const action = active.blocked ? 'unblock' : 'block';
  return section(
    'safety',
    'Visitor access',
    h('p', { class: active.blocked ? 'error' : 'muted' }, active.blocked ? 'Blocked: the visitor cannot write in this chat.' : `Abuse strikes: ${active.abuse_strikes}`),
    h('button', { type: 'button', id: 'block', onclick: () => void act(() => post(conversationPath(active.id, action)), active.blocked ? 'Visitor unblocked.' : 'Visitor blocked.', controller) }, active.blocked ? 'Unblock visitor' : 'Block visitor'),
  );
}

interface CustomerContext {
  email: string | null;
  email_source: 'verified' | 'typed' | null;
  lookup_skipped: 'no_email' | 'unverified_email' | null;
  shopify: { connected: boolean; orders: Array<{ name: string; total: string; financial_status: string; fulfillment_status: string; created_at: string; url: string }>; error?: string };
  stripe: { connected: boolean; data: null | { found: false } | { found: true; customer: { name: string | null; email: string | null }; subscriptions: Array<{ status: string; plan: string; amount: string | null; renews: string | null }> }; error?: string };
}

const SKIPPED: Record<string, string> = {
  no_email: 'No email is known, so the store and payments were not asked.',
  unverified_email: 'The email was typed by the visitor, not verified by a sign-in token, so the store and payments were not asked.',
};

/** Customer context: loaded once per opened conversation (the services take up to 5 s each). */
const contexts = new Map<string, Promise<CustomerContext | null>>();

function describe(context: CustomerContext): Child[] {
  const shop = context.shopify;
  const pay = context.stripe;
  return [
    h('p', {}, context.email ? `${context.email} (${context.email_source === 'verified' ? 'verified' : 'typed'})` : 'No email.'),
    context.lookup_skipped ? h('p', { class: 'muted' }, SKIPPED[context.lookup_skipped]) : null,
    shop.connected
      ? h('div', {}, h('h4', {}, 'Store orders'), shop.error ? h('p', { class: 'error' }, shop.error) : null, shop.orders.length ? h('ul', { class: 'plain' }, shop.orders.map((o) => h('li', {}, /^https?:\/\//i.test(o.url) ? h('a', { href: o.url, target: '_blank', rel: 'noopener noreferrer' }, o.name) : o.name, ` ${o.total} · ${o.financial_status} · ${o.fulfillment_status} · ${o.created_at}`))) : h('p', { class: 'muted' }, 'No orders.'))
      : h('p', { class: 'muted' }, 'No store connected.'),
    pay.connected
      ? h('div', {}, h('h4', {}, 'Payments'), pay.error ? h('p', { class: 'error' }, pay.error) : null, pay.data?.found ? h('ul', { class: 'plain' }, pay.data.subscriptions.map((s) => h('li', {}, `${s.plan} · ${s.status}${s.amount ? ` · ${s.amount}` : ''}${s.renews ? ` · renews ${s.renews}` : ''}`))) : h('p', { class: 'muted' }, 'No payments customer.'))
      : h('p', { class: 'muted' }, 'No payments connected.'),
  ];
}

export function customer(active: Active): HTMLElement {
  const part = section('customer', 'Customer', h('p', { class: 'muted' }, 'Looking the customer up…'));
  let loading = contexts.get(active.id);
  if (!loading) {
    loading = get<CustomerContext>(conversationPath(active.id, 'customer-context')).catch(() => null);
    contexts.set(active.id, loading);
  }
  void loading.then((context) => {
    const shown = context ? describe(context) : [h('p', { class: 'muted' }, 'The customer context could not be loaded.')];
    part.replaceChildren(part.firstChild!, ...shown.filter((c): c is Node => c instanceof Node));
  });
  return part;
}

/** A tag suggestion the agent does not want: hidden on this device (the API keeps suggestions until the next summary). */
const DISMISSED = 'parley.inbox.dismissed-tags';
export const dismissedTags = (conversationId: string): number[] => (JSON.parse(localStorage.getItem(DISMISSED) ?? '{}') as Record<string, number[]>)[conversationId] ?? [];
export function dismissTag(conversationId: string, tagId: number): void {
  const all = JSON.parse(localStorage.getItem(DISMISSED) ?? '{}') as Record<string, number[]>;
  all[conversationId] = [...(all[conversationId] ?? []), tagId];
  localStorage.setItem(DISMISSED, JSON.stringify(all));
}

