import { isAvailable, type AgentRoutingState } from '../domain/routing/agentStatus';

/** GET /api/agent/me/status. */
export const presentAgentRoutingState = (state: AgentRoutingState) => ({
  status: state.status,
  capacity: state.capacity,
  open_conversations: state.openConversations,
  mode: state.mode,
  available: isAvailable(state),
});
