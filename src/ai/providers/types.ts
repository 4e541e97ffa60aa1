import type { ProviderSlug } from '../../../config/providers';
import type { ProviderFailure } from './errors';

/** One turn of the conversation as the model sees it; the system prompt travels separately. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What Parley asks of any provider, whatever its wire protocol. `messages` ends with a user turn. */
export interface ChatRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  maxTokens: number;
  temperature?: number;
}

/** Where and as whom to call a provider: the resolved base URL (replacing the default as the SDK's `baseURL` does) and key. */
export interface ProviderEndpoint {
  slug: ProviderSlug;
  baseUrl: string;
  apiKey: string;
  /** Longest wait for the first byte of a response, and between two chunks of a stream. */
  timeoutMs: number;
  /** Told how each call went (the process's metrics); absent where nothing measures, as in adapter tests. */
  observe?: ProviderCallObserver;
}

/**
 * How one chat call ended: 'ok', the provider's failure, 'aborted' when the caller went away, or
 * 'internal' for an unexpected error in Parley's own code.
 */
export type ProviderCallOutcome = 'ok' | 'aborted' | 'internal' | ProviderFailure;

export interface ProviderCallReport {
  provider: ProviderSlug;
  outcome: ProviderCallOutcome;
  /** From the request to the whole answer (or the failure), retries included. */
  seconds: number;
  /** Until the first streamed text: what a visitor waits before words appear. Absent without streamed text. */
  firstDeltaSeconds?: number;
}

export type ProviderCallObserver = (report: ProviderCallReport) => void;

export interface ChatOptions {
  /** Aborts the upstream call when the caller goes away; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** When given, the call streams and this receives each text fragment in order; otherwise one non-streaming call. */
  onDelta?: (text: string) => void;
}

/** A finished call: the whole text and the provider's token counts (estimated when it reported none). */
export interface Completion {
  text: string;
  model: string;
  tokensIn: number;
  tokensOut: number;
}

/** One adapter per wire protocol (OpenAI-compatible chat completions, Anthropic messages, Gemini). */
export type ProviderAdapter = (endpoint: ProviderEndpoint, request: ChatRequest, options?: ChatOptions) => Promise<Completion>;
