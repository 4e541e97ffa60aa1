/**
 * The eight provider slugs, in the order `GET /api/portal/keys` lists them, the wire protocol each one
 * speaks, and the model its OpenAI-compatible `/embeddings` endpoint offers for retrieval by meaning
 * (null: the provider has no embeddings endpoint, and retrieval stays lexical; docs/performance.md).
 */
export const PROVIDERS = {
  claude: { label: 'Anthropic Claude', protocol: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com', embeddingModel: null },
  openai: { label: 'OpenAI', protocol: 'openai', defaultBaseUrl: 'https://api.openai.com/v1', embeddingModel: 'text-embedding-3-small' },
  gemini: { label: 'Google Gemini', protocol: 'gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com', embeddingModel: null },
  deepseek: { label: 'DeepSeek', protocol: 'openai', defaultBaseUrl: 'https://api.deepseek.com/v1', embeddingModel: null },
  kimi: { label: 'Moonshot Kimi', protocol: 'openai', defaultBaseUrl: 'https://api.moonshot.ai/v1', embeddingModel: null },
  groq: { label: 'Groq', protocol: 'openai', defaultBaseUrl: 'https://api.groq.com/openai/v1', embeddingModel: null },
  mistral: { label: 'Mistral', protocol: 'openai', defaultBaseUrl: 'https://api.mistral.ai/v1', embeddingModel: 'mistral-embed' },
  openrouter: { label: 'OpenRouter', protocol: 'openai', defaultBaseUrl: 'https://openrouter.ai/api/v1', embeddingModel: null },
} as const satisfies Record<string, { label: string; protocol: 'openai' | 'anthropic' | 'gemini'; defaultBaseUrl: string; embeddingModel: string | null }>;

export type ProviderSlug = keyof typeof PROVIDERS;
export const PROVIDER_SLUGS = Object.keys(PROVIDERS) as [ProviderSlug, ...ProviderSlug[]];

export function isProviderSlug(value: string): value is ProviderSlug {
  return Object.hasOwn(PROVIDERS, value);
}
