import type { ChatRequest, Completion } from './types';

/** Token counts as a provider reported them; either may be missing (stream cut short, proxy strips usage). */
export interface ReportedUsage {
  tokensIn?: number;
  tokensOut?: number;
}

/**
 * Stand-in token count when a provider reports none: ceil(characters / 4), the usual rule of thumb
 * for English text with BPE tokenizers. It only has to keep the usage ledger and the monthly
 * allowance roughly right, never to match a bill.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function promptText(request: ChatRequest): string {
  return request.system + request.messages.map((message) => message.content).join('');
}

/**
 * The finished call. `model` is the model Parley asked for rather than the one the provider echoes
 * back: providers answer with dated snapshot names (`gpt-4o-2024-08-06`) that the pricing table and
 * the chatbot's settings do not know.
 */
export function completion(request: ChatRequest, text: string, usage: ReportedUsage): Completion {
  return {
    text,
    model: request.model,
    tokensIn: usage.tokensIn ?? estimateTokens(promptText(request)),
    tokensOut: usage.tokensOut ?? estimateTokens(text),
  };
}
