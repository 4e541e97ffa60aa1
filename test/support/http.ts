import { server } from './hooks';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A real HTTP request to the test server; JSON in, JSON (or text) out. */
export async function request<T = any>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; baseUrl?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  const response = await fetch(`${options.baseUrl ?? server().url}${path}`, { method, headers, body });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.includes('application/json');
  return { status: response.status, headers: response.headers, body: (isJson ? JSON.parse(text) : text) as T };
}

export const get = <T = any>(path: string, token?: string) => request<T>('GET', path, { token });
