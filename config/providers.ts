/** The eight provider slugs, in the order `GET /api/portal/keys` lists them, and the wire protocol each one speaks. */
export const PROVIDERS = {
  claude: { label: 'Anthropic Claude', protocol: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com' },
  openai: { label: 'OpenAI', protocol: 'openai', defaultBaseUrl: 'https://api.openai.com/v1' },
  gemini: { label: 'Google Gemini', protocol: 'gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com' },
  deepseek: { label: 'DeepSeek', protocol: 'openai', defaultBaseUrl: 'https://api.deepseek.com/v1' },
  kimi: { label: 'Moonshot Kimi', protocol: 'openai', defaultBaseUrl: 'https://api.moonshot.ai/v1' },
  groq: { label: 'Groq', protocol: 'openai', defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  mistral: { label: 'Mistral', protocol: 'openai', defaultBaseUrl: 'https://api.mistral.ai/v1' },
  openrouter: { label: 'OpenRouter', protocol: 'openai', defaultBaseUrl: 'https://openrouter.ai/api/v1' },
} as const satisfies Record<string, { label: string; protocol: 'openai' | 'anthropic' | 'gemini'; defaultBaseUrl: string }>;

export type ProviderSlug = keyof typeof PROVIDERS;
export const PROVIDER_SLUGS = Object.keys(PROVIDERS) as [ProviderSlug, ...ProviderSlug[]];

export function isProviderSlug(value: string): value is ProviderSlug {
  return Object.hasOwn(PROVIDERS, value);
}
