import type { Chatbot, Company, User } from '../models';

/** Shapes the CLI prints (DECISIONS.md operator command line table). */
export const presentCliCompany = (company: Company) => ({ id: company.id, name: company.name, slug: company.slug, plan: company.plan });

export const presentCliUser = (user: User) => ({ id: user.id, name: user.name, email: user.email, role: user.role });

export const presentCliChatbot = (chatbot: Chatbot, identitySecret: string) => ({
  id: chatbot.id,
  public_key: chatbot.publicKey,
  name: chatbot.name,
  provider: chatbot.provider,
  model: chatbot.model,
  is_active: chatbot.isActive,
  identity_secret: identitySecret,
});
