import { z } from 'zod';
import { count, id } from './formats';
import { named } from './named';

export const v1User = named('V1User', z.object({ id, name: z.string(), email: z.string(), role: z.string() }));
export const v1Company = named('V1Company', z.object({ id, name: z.string(), slug: z.string(), plan: z.string() }));

export const portalUser = named('PortalUser', z.object({ name: z.string(), email: z.string(), role: z.string() }));
export const portalCompany = named('PortalCompany', z.object({ name: z.string(), plan: z.string() }));
export const brand = named('Brand', z.object({ name: z.string(), powered_by: z.string(), logo_url: z.string() }), "The workspace's portal brand.");

export const portalLimits = z.object({
  plan: z.string().describe('the plan label, e.g. "Pro"'),
  monthly_message_limit: count.nullable().describe('null: unlimited plan'),
  chatbot_limit: count,
  agent_seats: count,
});

export const portalUsage = z.object({
  messages_used: count,
  message_limit: count.nullable(),
  usage_percent: count.nullable().describe('floor(100 x used / limit); null when unlimited'),
  chatbots: count,
});

export const agentUser = named(
  'AgentUser',
  z.object({ id, name: z.string(), email: z.string(), role: z.string().describe('the role label: Owner, Admin, Agent'), avatar: z.string().describe('picture URL, or an inline data: URL of initials') }),
);
export const agentCompany = named('AgentCompany', z.object({ id, name: z.string(), plan: z.string() }));
