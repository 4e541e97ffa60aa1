import type { Session } from './types.js';

/** `<prefix>/inbox/`: every other address is relative to where this module was served from. */
export const ROOT = new URL('./', import.meta.url);
export const API = new URL('../api/agent/', ROOT);

const TOKEN_KEY = 'parley.agent.token';
const EXPIRES_KEY = 'parley.agent.expires_at';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export const storedToken = (): string | null => localStorage.getItem(TOKEN_KEY);

export function storeSession(session: Pick<Session, 'token' | 'expires_at'>): void {
  localStorage.setItem(TOKEN_KEY, session.token);
  localStorage.setItem(EXPIRES_KEY, session.expires_at);
}

export function forgetSession(): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(EXPIRES_KEY);
}

/** Clients rotate the token once it is past half its 30-day life (docs/api.md "Agent app", "Session"). */
export function tokenPastHalfLife(now = Date.now()): boolean {
  const expires = Date.parse(localStorage.getItem(EXPIRES_KEY) ?? '');
  return Number.isFinite(expires) && expires - now < 15 * 86_400_000;
}

let onUnauthorized: () => void = () => undefined;

/** Who hears that the token stopped working (401 anywhere): the app shows the sign-in form. */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = storedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(new URL(path, API), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check the connection and try again.');
  }
  const payload = (await response.json().catch(() => ({}))) as { message?: string; errors?: Record<string, string[]> };
  if (response.ok) return payload as T;
  if (response.status === 401 && path !== 'login') onUnauthorized();
  const retryAfter = Number(response.headers.get('Retry-After'));
  throw new ApiError(response.status, payload.message || `Request failed (${response.status}).`, payload.errors ?? {}, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}

/** The sentence to show for a failure: the first field error when there is one, else the message. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : 'Something went wrong.';
  const first = Object.values(error.errors)[0]?.[0];
  if (error.status === 429 && error.retryAfter) return `${error.message} Try again in ${error.retryAfter} s.`;
  return first ?? error.message;
}

export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const get = <T>(path: string) => api<T>('GET', path);
export const conversationPath = (id: string, action = '') => `conversations/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;
