import { performance } from 'node:perf_hooks';
import { PROVIDERS, type ProviderSlug } from '../../../config/providers';
import { anthropicAdapter } from './anthropic';
import { ProviderError } from './errors';
import { geminiAdapter } from './gemini';
import { openaiAdapter } from './openai';
import type { ChatOptions, ChatRequest, Completion, ProviderAdapter, ProviderCallObserver, ProviderCallOutcome, ProviderEndpoint } from './types';

export { ProviderError, type ProviderFailure } from './errors';
export { estimateTokens } from './usage';
export type { ChatMessage, ChatOptions, ChatRequest, Completion, ProviderAdapter, ProviderCallObserver, ProviderCallReport, ProviderEndpoint } from './types';

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
 * ProviderError, or with the signal's reason when the caller aborted. The endpoint's observer, if
 * any, hears how the call went.
 */
export function chat(endpoint: ProviderEndpoint, request: ChatRequest, options?: ChatOptions): Promise<Completion> {
  const adapter = adapterFor(endpoint.slug);
  return endpoint.observe ? observed(adapter, endpoint.observe, endpoint, request, options) : adapter(endpoint, request, options);
}

async function observed(
  adapter: ProviderAdapter,
  observe: ProviderCallObserver,
  endpoint: ProviderEndpoint,
  request: ChatRequest,
  options: ChatOptions = {},
): Promise<Completion> {
  const started = performance.now();
  let firstDelta: number | undefined;
  const { onDelta } = options;
  // Deltas are the hot path: one comparison each, the clock read once.
  const timedDelta = onDelta && ((text: string): void => {
    firstDelta ??= performance.now();
    onDelta(text);
  });
  const report = (outcome: ProviderCallOutcome): void =>
    observe({
      provider: endpoint.slug,
      outcome,
      seconds: (performance.now() - started) / 1000,
      ...(firstDelta === undefined ? {} : { firstDeltaSeconds: (firstDelta - started) / 1000 }),
    });
  try {
    const completion = await adapter(endpoint, request, { ...options, onDelta: timedDelta });
    report('ok');
    return completion;
  } catch (error) {
    report(error instanceof ProviderError ? error.failure : options.signal?.aborted ? 'aborted' : 'internal');
    throw error;
  }
}
