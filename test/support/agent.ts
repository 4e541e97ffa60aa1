import type { PlanName } from '../../config/plans';
import type { RoleName } from '../../config/roles';
import * as make from './factories';

/** A workspace with an owner, one user of `role` (agent by default), a chatbot and that user's agent token. */
export async function agentTenant(options: { plan?: PlanName; role?: RoleName } = {}) {
  const { company, owner } = await make.workspace({ plan: options.plan ?? 'pro' });
  const agent = await make.user(company, options.role ?? 'agent');
  const bot = await make.chatbot(company);
  return { company, owner, agent, bot, token: await make.token(agent, 'agent') };
}
