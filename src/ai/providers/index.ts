import { PROVIDERS, type ProviderSlug } from '../../../config/providers';
import { anthropicAdapter } from './anthropic';
import { geminiAdapter } from './gemini';
import { openaiAdapter } from './openai';
import type { ChatOptions, ChatRequest, Completion, ProviderAdapter, ProviderEndpoint } from './types';

export { ProviderError, type ProviderFailure } from './errors';
export { estimateTokens } from './usage';
export type { ChatMessage, ChatOptions, ChatRequest, Completion, ProviderAdapter, ProviderEndpoint } from './types';

const ADAPTERS = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
} as const satisfies Record<(typeof PROVIDERS)[ProviderSlug]['protocol'], ProviderAdapter>;

/** The adapter for the wire protocol a provider speaks. */
export function adapterFor(slug: ProviderSlug): ProviderAdapter {
  return ADAPTERS[PROVIDERS[slug].protocol];
}

/**
 * One chat call to the endpoint's provider: streams to `options.onDelta` when given. Token counts
 * are the provider's, or estimated with `estimateTokens` when it reported none. Rejects with a
 * ProviderError, or with the signal's reason when the caller aborted.
 */
export const chat = (endpoint: ProviderEndpoint, request: ChatRequest, options?: ChatOptions): Promise<Completion> =>
  adapterFor(endpoint.slug)(endpoint, request, options);
