import { randomBytes } from 'node:crypto';
import type { PlanName } from '../../config/plans';
import { freshIp } from './portal';
import { postStream, type SseReply } from './sse';
import * as make from './factories';

export const newVisitor = () => `visitor-${randomBytes(5).toString('hex')}`;

/** A workspace with an active chatbot; `withKey` stores a provider key so replies come from the fake LLM. */
export async function widgetTenant(options: { plan?: PlanName; withKey?: boolean } = {}) {
  const { company, owner } = await make.workspace({ plan: options.plan ?? 'pro' });
  const bot = await make.chatbot(company);
  if (options.withKey !== false) await make.providerKey(company, bot.provider);
  return { company, owner, bot, base: `/widget/${bot.publicKey}`, ip: freshIp() };
}

/** POST /widget/{key}/stream from the tenant's made-up client address. */
export const ask = (tenant: { base: string; ip: string }, body: Record<string, unknown>): Promise<SseReply> =>
  postStream(`${tenant.base}/stream`, body, { 'X-Forwarded-For': tenant.ip });
