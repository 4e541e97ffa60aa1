import { createHmac, randomBytes } from 'node:crypto';
import type { PlanName } from '../../config/plans';
import type { RoleName, TokenAbility } from '../../config/roles';
import { Chatbot, Company, Conversation, KnowledgeSource, Message, User, type ConversationStatus, type KnowledgeSourceStatus, type KnowledgeSourceType, type MessageRole } from '../../src/models';
import { createWorkspace } from '../../src/domain/accounts/createWorkspace';
import { createUser } from '../../src/domain/accounts/createUser';
import { issueToken } from '../../src/domain/accounts/tokens';
import { createChatbot } from '../../src/domain/chatbots/createChatbot';
import { hashPassword } from '../../src/security/passwords';
import { saveProviderKey } from '../../src/domain/providerKeys/providerKeys';
import type { ProviderSlug } from '../../config/providers';
import { server } from './hooks';

const unique = () => randomBytes(4).toString('hex');

/** Every fixture user's password. */
const FIXTURE_PASSWORD = 'password-123';
// One scrypt hash per run instead of one per user: at the current parameters each costs a fifth of a second.
let fixtureHash: Promise<string> | undefined;
const fixturePassword = async () => ({ hash: await (fixtureHash ??= hashPassword(FIXTURE_PASSWORD)) });

/** A fresh workspace with its owner; every test makes its own so tests never share tenants. */
export async function workspace(options: { plan?: PlanName; portal?: boolean; name?: string } = {}): Promise<{ company: Company; owner: User }> {
  const { company, owner } = await createWorkspace({
    name: options.name ?? `Workspace ${unique()}`,
    plan: options.plan ?? 'pro',
    portalEnabled: options.portal ?? false,
    owner: { email: `owner-${unique()}@example.test`, password: await fixturePassword(), name: 'Owner' },
  });
  return { company, owner: owner! };
}

export async function user(company: Company, role: RoleName = 'agent', name = `User ${unique()}`): Promise<User> {
  return createUser(company, { email: `${role}-${unique()}@example.test`, password: await fixturePassword(), name, role });
}

export async function token(owner: User, ability: TokenAbility = 'api'): Promise<string> {
  return (await issueToken(owner, ability)).plain;
}

export async function chatbot(company: Company, name = `Bot ${unique()}`): Promise<Chatbot> {
  return (await createChatbot(company, { name }, server().ctx.secrets)).chatbot;
}

/** A conversation with a transcript; `lastMessageAt` orders it in lists. */
export async function conversation(
  bot: Chatbot,
  options: { visitorKey?: string; status?: ConversationStatus; lastMessageAt?: Date; messages?: Array<[MessageRole, string]> } = {},
): Promise<Conversation> {
  const created = await Conversation.create({
    companyId: bot.companyId,
    chatbotId: bot.id,
    visitorKey: options.visitorKey ?? `visitor-${unique()}`,
    status: options.status ?? 'bot',
    lastMessageAt: options.lastMessageAt ?? new Date(),
  });
  for (const [role, content] of options.messages ?? []) {
    await Message.create({ companyId: bot.companyId, conversationId: created.id, role, content });
  }
  return created;
}

/** A workspace, its owner, an api token and a chatbot: the usual starting point of a v1 test. */
export async function v1Tenant(plan: PlanName = 'pro') {
  const { company, owner } = await workspace({ plan });
  return { company, owner, token: await token(owner), bot: await chatbot(company) };
}

/** One failed sign-in as another surface (web or agent login) records it: the lockout counter is shared. */
export async function lockoutFailure(email: string): Promise<void> {
  await (await server().ctx.lockout.begin(email)).failed();
}

/** A knowledge source row as stored (no indexing); `parentId` makes it a crawled page of another. */
export function knowledgeSource(
  bot: Chatbot,
  options: { type?: KnowledgeSourceType; status?: KnowledgeSourceStatus; parentId?: number; title?: string; createdAt?: Date },
): Promise<KnowledgeSource> {
  const type = options.type ?? (options.parentId ? 'page' : 'text');
  return KnowledgeSource.create({
    companyId: bot.companyId,
    chatbotId: bot.id,
    parentId: options.parentId ?? null,
    type,
    title: options.title ?? `Source ${unique()}`,
    status: options.status ?? 'ready',
    content: type === 'text' ? 'Some text.' : null,
    sourceUrl: type === 'url' || type === 'page' ? `https://example.test/${unique()}` : null,
    ...(options.createdAt && { createdAt: options.createdAt }),
  });
}

/** Stores a provider key for the workspace (sealed, as the portal does). */
export function providerKey(company: Company, provider: ProviderSlug = 'openai', key = `sk-test-${unique()}`): Promise<unknown> {
  return saveProviderKey(company.id, provider, key, server().ctx.secrets);
}

/** The chatbot's identity secret, unsealed (the CLI shows it once at creation). */
export async function chatbotIdentitySecret(bot: Chatbot): Promise<string> {
  return server().ctx.secrets.open(bot.identitySecretEncrypted);
}

/** A widget identity JWT signed with HS256 (or an unsigned one with alg `none`). */
export function identityToken(secret: string, claims: Record<string, unknown>, alg = 'HS256'): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg, typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${alg === 'none' ? '' : createHmac('sha256', secret).update(body).digest('base64url')}`;
}
