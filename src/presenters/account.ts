import { planOf } from '../../config/plans';
import type { Allowance } from '../domain/usage/allowance';
import type { Company, User } from '../models';

/** The user shape of v1 `me` and of the operator CLI. */
export const presentV1User = (user: User) => ({ id: user.id, name: user.name, email: user.email, role: user.role });

/** The company shape of v1 `me` and of the operator CLI. */
export const presentV1Company = (company: Company) => ({ id: company.id, name: company.name, slug: company.slug, plan: company.plan });

/** The user shape of portal login and portal `me`. */
export const presentPortalUser = (user: User) => ({ name: user.name, email: user.email, role: user.role });

/** The company shape of the portal. */
export const presentPortalCompany = (company: Company) => ({ name: company.name, plan: company.plan });

/** Portal `me` limits: the plan's figures, labelled. */
export function presentPortalLimits(company: Company) {
  const plan = planOf(company);
  return { plan: plan.label, monthly_message_limit: plan.monthlyMessageLimit, chatbot_limit: plan.chatbotLimit, agent_seats: plan.agentSeats };
}

/** Portal `me` usage: this month's allowance and the number of chatbots. */
export const presentPortalUsage = (allowance: Allowance, chatbots: number) => ({
  messages_used: allowance.used,
  message_limit: allowance.limit,
  usage_percent: allowance.percent,
  chatbots,
});
