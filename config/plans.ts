/** Plans as data (docs/api.md "Authentication"). `monthlyMessageLimit: null` means unlimited. */
export const PLANS = {
  free: { label: 'Free', monthlyMessageLimit: 100, chatbotLimit: 1, agentSeats: 1 },
  starter: { label: 'Starter', monthlyMessageLimit: 2000, chatbotLimit: 3, agentSeats: 3 },
  pro: { label: 'Pro', monthlyMessageLimit: 20000, chatbotLimit: 10, agentSeats: 10 },
  enterprise: { label: 'Enterprise', monthlyMessageLimit: null, chatbotLimit: 100, agentSeats: 100 },
} as const satisfies Record<string, Plan>;

export interface Plan {
  label: string;
  monthlyMessageLimit: number | null;
  chatbotLimit: number;
  agentSeats: number;
}

export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as [PlanName, ...PlanName[]];

export function isPlanName(value: string): value is PlanName {
  return Object.hasOwn(PLANS, value);
}

/** The plan a workspace is on (unknown names fall back to free rather than crash a request). */
export function planOf(workspace: { plan: string }): Plan {
  return isPlanName(workspace.plan) ? PLANS[workspace.plan] : PLANS.free;
}
