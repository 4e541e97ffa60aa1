import { api, ApiError, explain, get } from './api.js';
import { byId, h, toast } from './dom.js';

/** GET /api/agent/me/status (docs/routing.md). */
interface RoutingState {
  status: 'online' | 'away';
  capacity: number;
  open_conversations: number;
  mode: 'manual' | 'auto';
  available: boolean;
}

const REFRESH_MS = 20_000;
let timer: number | undefined;

/**
 * The availability switch in the top bar, shown only when the workspace routes automatically: the
 * agent's status, how many conversations they hold of their capacity, and a click to go away or come
 * back. Kept in a file of its own so the rest of the inbox does not change for it.
 */
export function setUpAvailability(): void {
  // Signing in again reuses the switch of the first sign-in.
  document.getElementById('availability')?.remove();
  const button = h('button', { type: 'button', id: 'availability', class: 'availability', hidden: true });
  byId('user-name').before(button);
  let current: RoutingState | null = null;
  const paint = (state: RoutingState) => {
    current = state;
    button.hidden = state.mode !== 'auto';
    button.dataset.status = state.status;
    button.textContent = `${state.status === 'online' ? 'Available' : 'Away'} · ${state.open_conversations}/${state.capacity}`;
    button.title = state.status === 'online' ? 'New conversations are assigned to you. Click to go away.' : 'No new conversations are assigned to you. Click to come back.';
  };
  // Signed out (401): stop asking.
  const refresh = () => void get<RoutingState>('me/status').then(paint, (error: unknown) => error instanceof ApiError && error.status === 401 && window.clearInterval(timer));
  button.addEventListener('click', () => {
    if (!current) return;
    const status = current.status === 'online' ? 'away' : 'online';
    api<{ status: string }>('PATCH', 'me/status', { status }).then(refresh, (error: unknown) => toast(explain(error)));
  });
  refresh();
  window.clearInterval(timer);
  timer = window.setInterval(refresh, REFRESH_MS);
}
