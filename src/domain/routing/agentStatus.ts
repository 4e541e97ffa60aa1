import { QueryTypes } from 'sequelize';
import { User, type RoutingStatus } from '../../models';
import { routingOf, type RoutingSettings } from './settings';
import type { Company } from '../../models';

/** An agent's availability switch (PATCH /api/agent/me/status). */
export async function setRoutingStatus(user: User, status: RoutingStatus): Promise<RoutingStatus> {
  if (user.routingStatus !== status) await user.update({ routingStatus: status });
  return status;
}

/** Sets (or with null clears, back to the workspace's) an agent's own capacity (`parley user update --capacity`). */
export async function setCapacity(user: User, capacity: number | null): Promise<User> {
  return user.update({ capacity });
}

export interface AgentRoutingState {
  status: RoutingStatus;
  capacity: number;
  openConversations: number;
  mode: RoutingSettings['mode'];
  connected: boolean;
}

/** What the inbox shows of the agent's own routing: the switch, their capacity and how many they hold. */
export async function agentRoutingState(user: User, company: Company, connected: boolean): Promise<AgentRoutingState> {
  const settings = routingOf(company);
  const [row] = await User.sequelize!.query<{ open: string }>(`SELECT count(*) AS open FROM conversations WHERE assigned_user_id = :userId AND status = 'agent'`, {
    replacements: { userId: user.id },
    type: QueryTypes.SELECT,
  });
  return { status: user.routingStatus, capacity: user.capacity ?? settings.capacity, openConversations: Number(row?.open ?? 0), mode: settings.mode, connected };
}

/** Available to the router: auto mode, online, an inbox socket connected, and a seat free. */
export const isAvailable = (state: AgentRoutingState): boolean =>
  state.mode === 'auto' && state.status === 'online' && state.connected && state.openConversations < state.capacity;
