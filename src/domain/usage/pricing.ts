import { FREE, PRICING, type Price } from '../../../config/pricing';
import type { ProviderSlug } from '../../../config/providers';
import { EXTRACTIVE_MODEL } from '../../ai/extractive';

// OpenRouter resells other vendors' models under `vendor/model`; their own price lists apply.
const OPENROUTER_VENDORS: Record<string, ProviderSlug> = {
  openai: 'openai',
  anthropic: 'claude',
  google: 'gemini',
  deepseek: 'deepseek',
  moonshotai: 'kimi',
  mistralai: 'mistral',
};

/** The price of one model: exact id, else the longest listed prefix, else the provider's `*` rate. */
export function priceOf(provider: ProviderSlug, model: string): Price {
  if (model === EXTRACTIVE_MODEL) return FREE;
  const table = PRICING[provider];
  const match = longestPrefix(table, model);
  if (match || provider !== 'openrouter') return match ?? table['*'] ?? FREE;
  const [vendor, rest] = model.split('/', 2);
  const resold = vendor && rest ? OPENROUTER_VENDORS[vendor] : undefined;
  return (resold && longestPrefix(PRICING[resold], rest!)) ?? table['*'] ?? FREE;
}

/**
 * Cost in micro-cents (a millionth of a cent). Prices are dollars per million tokens, so one token
 * at $1/M is 100 micro-cents: integers all the way, summed without drift.
 */
export function costMicroCents(provider: ProviderSlug, model: string, tokensIn: number, tokensOut: number): number {
  const price = priceOf(provider, model);
  return Math.round((tokensIn * price.input + tokensOut * price.output) * 100);
}

function longestPrefix(table: Record<string, Price>, model: string): Price | undefined {
  let best: string | undefined;
  for (const id of Object.keys(table)) {
    if (id !== '*' && model.startsWith(id) && (!best || id.length > best.length)) best = id;
  }
  return best ? table[best] : undefined;
}
