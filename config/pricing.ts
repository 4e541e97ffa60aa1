import type { ProviderSlug } from './providers';

/** US dollars per million tokens, in and out. */
export interface Price {
  input: number;
  output: number;
}

/**
 * List prices per provider and model (public price pages, late 2025). A model matches its exact id
 * or the longest listed prefix (`gpt-4o-mini-2024-07-18` is `gpt-4o-mini`); an unlisted model is
 * charged at its provider's `*` rate so usage is never recorded as free by accident.
 */
export const PRICING: Record<ProviderSlug, Record<string, Price>> = {
  openai: {
    '*': { input: 2.5, output: 10 },
    'gpt-4o-mini': { input: 0.15, output: 0.6 },
    'gpt-4o': { input: 2.5, output: 10 },
    'gpt-4.1': { input: 2, output: 8 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, output: 0.4 },
    'gpt-5': { input: 1.25, output: 10 },
    'gpt-5-mini': { input: 0.25, output: 2 },
    'gpt-5-nano': { input: 0.05, output: 0.4 },
  },
  claude: {
    '*': { input: 3, output: 15 },
    'claude-3-5-haiku': { input: 0.8, output: 4 },
    'claude-haiku-4-5': { input: 1, output: 5 },
    'claude-3-7-sonnet': { input: 3, output: 15 },
    'claude-sonnet-4': { input: 3, output: 15 },
    'claude-opus-4': { input: 15, output: 75 },
  },
  gemini: {
    '*': { input: 1.25, output: 10 },
    'gemini-2.0-flash': { input: 0.1, output: 0.4 },
    'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
    'gemini-2.5-flash': { input: 0.3, output: 2.5 },
    'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
    'gemini-2.5-pro': { input: 1.25, output: 10 },
  },
  deepseek: {
    '*': { input: 0.55, output: 2.19 },
    'deepseek-chat': { input: 0.27, output: 1.1 },
    'deepseek-reasoner': { input: 0.55, output: 2.19 },
  },
  kimi: {
    '*': { input: 2, output: 5 },
    'moonshot-v1-8k': { input: 0.2, output: 2 },
    'moonshot-v1-32k': { input: 1, output: 3 },
    'moonshot-v1-128k': { input: 2, output: 5 },
    'kimi-k2': { input: 0.6, output: 2.5 },
  },
  groq: {
    '*': { input: 0.59, output: 0.79 },
    'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
    'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
  },
  mistral: {
    '*': { input: 2, output: 6 },
    'mistral-small': { input: 0.1, output: 0.3 },
    'mistral-medium': { input: 0.4, output: 2 },
    'mistral-large': { input: 2, output: 6 },
    'open-mistral-nemo': { input: 0.15, output: 0.15 },
  },
  // OpenRouter ids are `vendor/model`; listed here are the ones whose vendor table above has no match.
  openrouter: {
    '*': { input: 3, output: 15 },
    'meta-llama/llama-3.3-70b-instruct': { input: 0.13, output: 0.4 },
  },
};

/** What `extractive` answers (no model, no key) cost. */
export const FREE: Price = { input: 0, output: 0 };
