import { z } from 'zod';
import { kickRouter } from '../../actors/routing/kick';
import { agentRoutingState, setRoutingStatus } from '../../domain/routing/agentStatus';
import { authOf } from '../../http/authenticate';
import { agentRoutingState as agentRoutingStateSchema, agentStatus } from '../../openapi/responses/routing';
import { presentAgentRoutingState } from '../../presenters/agentRouting';
import { endpoint } from '../endpoint';

const agent = { surface: 'agent', auth: 'agent' } as const;

const statusBody = z.strictObject({ status: agentStatus.describe('`away` stops the router giving you conversations; what you hold stays yours') });

/** Extension: the agent's availability for auto-assignment (docs/routing.md). */
export const routingEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/me/status',
    summary: "The caller's availability switch, capacity and open conversations",
    responses: { 200: { description: 'The routing state.', json: agentRoutingStateSchema } },
    handler: async ({ inboxPresence }, req, res) => {
      const { user, company } = authOf(req);
      const connected = (await inboxPresence?.connected(company.id))?.has(user.id) ?? false;
      res.json(presentAgentRoutingState(await agentRoutingState(user, company, connected)));
    },
  }),
  endpoint({
    ...agent,
    method: 'patch',
    path: '/api/agent/me/status',
    summary: 'Set your availability: `online` (the router may give you conversations) or `away`',
    ability: 'handle-conversations',
    body: { schema: statusBody, examples: [{ status: 'away' }, { status: 'online' }] },
    responses: { 200: { description: 'The status now.', json: z.object({ status: agentStatus }) } },
    handler: async ({ actors, body }, req, res) => {
      const { user, company } = authOf(req);
      const status = await setRoutingStatus(user, body().status);
      // Back online: whoever waits may be theirs now.
      if (status === 'online') await kickRouter(actors, company.id);
      res.json({ status });
    },
  }),
];
