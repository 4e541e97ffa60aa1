import { planOf } from '../../../config/plans';
import type { ProviderSlug } from '../../../config/providers';
import { Chatbot, type Company } from '../../models';
import type { SecretBox } from '../../security/encryption';
import { randomSecret } from '../../security/tokens';
import { unprocessable } from '../../errors';
import { DEFAULT_WELCOME_MESSAGE } from './branding';

export const DEFAULT_MODELS: Record<ProviderSlug, string> = {
  openai: 'gpt-4o-mini',
  claude: 'claude-3-5-haiku-latest',
  gemini: 'gemini-2.0-flash',
  deepseek: 'deepseek-chat',
  kimi: 'moonshot-v1-8k',
  groq: 'llama-3.1-8b-instant',
  mistral: 'mistral-small-latest',
  openrouter: 'openai/gpt-4o-mini',
};

/** Characters of a chatbot's identity secret (the HS256 key of its widget identity tokens). */
export const IDENTITY_SECRET_LENGTH = 48;

export interface NewChatbot {
  name: string;
  provider?: ProviderSlug;
  model?: string;
  liveVisitors?: boolean;
  isActive?: boolean;
}

/**
 * A chatbot with a fresh public key and identity secret (sealed at rest; returned once, here).
 * The plan's chatbot limit is enforced.
 */
export async function createChatbot(
  company: Company,
  input: NewChatbot,
  secrets: SecretBox,
): Promise<{ chatbot: Chatbot; identitySecret: string }> {
  const plan = planOf(company);
  const limit = plan.chatbotLimit;
  if ((await Chatbot.count({ where: { companyId: company.id } })) >= limit) {
    throw unprocessable(`The ${plan.label} plan allows ${limit} chatbot${limit === 1 ? '' : 's'}.`);
  }
  const provider = input.provider ?? 'openai';
  const identitySecret = randomSecret(IDENTITY_SECRET_LENGTH);
  const chatbot = await Chatbot.create({
    companyId: company.id,
    publicKey: `pk_${randomSecret(24)}`,
    name: input.name.trim(),
    provider,
    model: input.model ?? DEFAULT_MODELS[provider],
    isActive: input.isActive ?? true,
    welcomeMessage: DEFAULT_WELCOME_MESSAGE,
    branding: input.liveVisitors ? { live_visitors: true } : {},
    identitySecretEncrypted: secrets.seal(identitySecret),
  });
  return { chatbot, identitySecret };
}
