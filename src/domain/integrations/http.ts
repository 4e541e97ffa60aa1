import type { IntegrationKind } from '../../models';

/** How long one lookup (all of a service's calls for one answer) may take before the agent sees it as unavailable. */
export const INTEGRATION_TIMEOUT_MS = 5_000;

/** A commerce service could not answer usefully: unreachable, too slow, refused our credentials, or spoke a shape we do not know. */
export class IntegrationUnavailable extends Error {
  override name = 'IntegrationUnavailable';
  constructor(
    readonly service: IntegrationKind,
    readonly reason: 'timeout' | 'unreachable' | 'rejected' | 'malformed',
    readonly status?: number,
  ) {
    super(`${service} ${reason}${status ? ` (${status})` : ''}`);
  }
}

/** `base` (which may carry a path, like a stand-in's) joined with an API path and query. */
export function apiUrl(base: string, path: string, query: Record<string, string | string[]>): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  return url;
}

/**
 * GET a JSON document. Redirects are refused: fetch would carry a custom credential header
 * (X-Shopify-Access-Token) to whatever host a redirect names. Errors name the service and status only,
 * never the URL (it holds the visitor's email) or the credential.
 */
export async function getJson(service: IntegrationKind, url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal, redirect: 'error' });
  } catch {
    throw new IntegrationUnavailable(service, signal.aborted ? 'timeout' : 'unreachable');
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new IntegrationUnavailable(service, 'rejected', response.status);
  }
  try {
    return await response.json();
  } catch {
    throw new IntegrationUnavailable(service, signal.aborted ? 'timeout' : 'malformed');
  }
}

/** Reads a wire document through a zod schema; an unexpected shape is the service's failure, not ours. */
export function wireShape<T>(service: IntegrationKind, schema: { safeParse(input: unknown): { success: true; data: T } | { success: false } }, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw new IntegrationUnavailable(service, 'malformed');
  return result.data;
}
