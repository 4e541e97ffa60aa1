import { z } from 'zod';
import { routingRules } from '../../domain/routing/settings';
import { count } from './formats';
import { named } from './named';

/** The workspace's routing settings, every default filled in (portal GET and PUT, `parley routing show`). */
export const routingSettings = named(
  'RoutingSettings',
  z.object({
    mode: routingRules.mode,
    capacity: routingRules.capacity,
    accept_seconds: routingRules.accept_seconds,
    business_hours: routingRules.business_hours,
    offline_message: z.string(),
    ai_after_hours: z.boolean(),
  }),
);

export const agentStatus = z.enum(['online', 'away']);

/** The calling agent's routing state (GET /api/agent/me/status). */
export const agentRoutingState = named(
  'AgentRoutingState',
  z.object({
    status: agentStatus,
    capacity: z.int().min(1).describe("this agent's capacity: their own, else the workspace's"),
    open_conversations: count.describe('conversations this agent holds now (status agent)'),
    mode: routingRules.mode,
    available: z.boolean().describe('the router may give this agent a conversation now: online, an inbox socket connected, under capacity, and the workspace routes automatically'),
  }),
);
