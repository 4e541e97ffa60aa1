import { randomBytes } from 'node:crypto';
import type { TokenAbility } from '../../config/roles';
import { createCannedReply } from '../../src/domain/catalogue/createCannedReply';
import { createTag } from '../../src/domain/catalogue/createTag';
import { followUpsOf } from '../../src/domain/followup/service';
import { AiSuggestion, Message, Webhook, type Chatbot, type Company, type Conversation, type User } from '../../src/models';
import * as make from './factories';
import { server } from './hooks';
import { request } from './http';
import { freshIp } from './portal';

export const PASSWORD = 'password-123';

/**
 * A workspace with one of everything a route can name (chatbot, conversation with a transcript and a
 * visitor email, tag, canned reply, knowledge source, AI suggestion, a visitor on the site) and a
 * token of each ability, so every route can be called with ids that exist and reach its validation.
 */
export interface SweepTenant {
  company: Company;
  owner: User;
  bot: Chatbot;
  conversation: Conversation;
  visitorKey: string;
  liveVisitor: string;
  tokens: Record<TokenAbility, string>;
  /** Path parameter values by name. */
  params: Record<string, string>;
  /** Values for body and query fields that must name something of this workspace. */
  references: Record<string, unknown>;
  /** A token for a new admin of this workspace: a fresh identity for per-user route limits. */
  freshToken(ability: TokenAbility): Promise<string>;
}

const unique = () => randomBytes(4).toString('hex');

/** `liveVisitor: false` skips the heartbeat (whose presence is written behind, a second later). */
export async function sweepTenant(options: { liveVisitor?: boolean } = {}): Promise<SweepTenant> {
  const { company, owner } = await make.workspace({ plan: 'enterprise', portal: true });
  const bot = await make.chatbot(company);
  await bot.update({ branding: { ...bot.branding, live_visitors: true } });
  const visitorKey = `visitor-${unique()}`;
  const conversation = await make.conversation(bot, { visitorKey, messages: [['visitor', 'Hello, do you ship to Canada?'], ['assistant', 'Yes, we do.']] });
  await conversation.update({ visitorName: 'Ann Example', visitorEmail: `ann-${unique()}@example.test` });
  const [tag, canned, source] = await Promise.all([
    createTag(company.id, { name: `Tag ${unique()}` }),
    createCannedReply(company.id, { title: 'Thanks', shortcut: `/thanks-${unique()}`, body: 'Thank you!' }),
    make.knowledgeSource(bot, { title: 'Shipping' }),
  ]);
  // Inactive: the tenant's writes queue no deliveries. Its test delivery goes to a local port nothing
  // listens on (WEBHOOK_ALLOW_PRIVATE=1 in tests), refused at once rather than waiting on outside DNS.
  const webhook = await Webhook.create({ companyId: company.id, url: 'http://127.0.0.1:9/hook', events: ['message.created'], secretEncrypted: server().ctx.secrets.seal('whsec_sweep'), active: false });
  const suggestion = await AiSuggestion.create({ companyId: company.id, conversationId: conversation.id, userId: owner.id, suggestion: 'Sure!', outcome: 'generated' });
  const answer = await Message.findOne({ where: { conversationId: conversation.id, role: 'assistant' }, attributes: ['id'] });
  const followUp = await followUpsOf(server().ctx).records.create({ companyId: company.id, conversationId: conversation.id, recipient: conversation.visitorEmail!, lines: [{ id: Number(answer!.id), content: '', at: new Date() }] });
  const liveVisitor = `visitor-${unique()}`;
  if (options.liveVisitor !== false) {
    const beat = await request('POST', `/widget/${bot.publicKey}/heartbeat`, {
      body: { visitor_id: liveVisitor, url: 'https://shop.example/shoes', title: 'Shoes' },
      headers: { 'X-Forwarded-For': freshIp() },
    });
    if (beat.status !== 200) throw new Error(`heartbeat for the live visitor answered ${beat.status}`);
  }
  const [api, portal, agent] = await Promise.all([make.token(owner, 'api'), make.token(owner, 'portal'), make.token(owner, 'agent')]);
  return {
    company,
    owner,
    bot,
    conversation,
    visitorKey,
    liveVisitor,
    tokens: { api, portal, agent },
    params: {
      key: bot.publicKey,
      conversation: conversation.publicId,
      source: String(source.id),
      provider: 'openai',
      tag: String(tag.id),
      canned: String(canned.id),
      suggestion: String(suggestion.id),
      visitor: liveVisitor,
      language: 'fr',
      webhook: String(webhook.id),
      message_id: String(answer!.id),
    },
    references: {
      conversation_id: conversation.publicId,
      conversation: conversation.publicId,
      visitor_id: visitorKey,
      tag_id: tag.id,
      chatbot_id: bot.id,
      chatbot_filter: [bot.id],
      channel_name: `private-company.${company.id}`,
      email: owner.email,
      password: PASSWORD,
      // A widget identity token only its chatbot's secret can sign: no document example can be one.
      // An offline follow-up's link, signed with the server's key for a mail of the tenant's conversation.
      continue: followUpsOf(server().ctx).links.sign(conversation.publicId, followUp.id),
      identity: make.identityToken(await make.chatbotIdentitySecret(bot), { sub: `cust-${unique()}`, exp: Math.floor(Date.now() / 1000) + 3600 }),
    },
    async freshToken(ability) {
      return make.token(await make.user(company, 'admin'), ability);
    },
  };
}

/** A path template with the tenant's values in: /api/agent/conversations/{conversation} -> /api/agent/conversations/<uuid>. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for the path parameter {${name}} of ${template}: add one to test/support/sweepTenant.ts`);
    return encodeURIComponent(value);
  });
}

/** An example body with the fields that name records replaced by this tenant's (top level only). */
export function withReferences<T>(example: T, references: Record<string, unknown>): T {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return example;
  const filled: Record<string, unknown> = { ...(example as Record<string, unknown>) };
  for (const name of Object.keys(filled)) if (name in references) filled[name] = references[name];
  return filled as T;
}
