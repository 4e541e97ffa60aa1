import { z } from 'zod';
import { routingOf, routingPatch, updateRouting } from '../../domain/routing/settings';
import { authOf } from '../../http/authenticate';
import { routingSettings } from '../../openapi/responses/routing';
import { presentRoutingSettings } from '../../presenters/routing';
import { endpoint } from '../endpoint';

const portal = { surface: 'portal', auth: 'portal' } as const;

/** Extension: how waiting conversations reach agents (docs/routing.md). */
export const routingEndpoints = [
  endpoint({
    ...portal,
    method: 'get',
    path: '/api/portal/routing',
    summary: "The workspace's routing settings: mode, capacity, accept timer, business hours",
    responses: { 200: { description: 'The settings, every default filled in.', json: z.object({ data: routingSettings }) } },
    handler: async (_input, req, res) => {
      res.json({ data: presentRoutingSettings(routingOf(authOf(req).company)) });
    },
  }),
  endpoint({
    ...portal,
    method: 'put',
    path: '/api/portal/routing',
    summary: "Change the workspace's routing settings",
    description:
      'Omitted fields keep their value; `business_hours: null` means always open. Unknown fields are refused (422 naming them); on any error nothing is saved. Switching to `auto` starts routing the conversations already waiting.',
    ability: 'manage-workspace',
    body: {
      schema: routingPatch,
      examples: [
        { mode: 'auto', capacity: 4, accept_seconds: 90 },
        { business_hours: { timezone: 'Europe/Paris', days: { mon: [['09:00', '12:30'], ['13:30', '18:00']], fri: [['09:00', '16:00']] } }, ai_after_hours: false, offline_message: 'Back at 9.' },
      ],
    },
    responses: { 200: { description: 'The settings now.', json: z.object({ data: routingSettings }) } },
    handler: async ({ actors, body }, req, res) => {
      const { company } = authOf(req);
      const settings = await updateRouting(company, body());
      // Conversations already waiting are routed now rather than at the next handoff.
      if (settings.mode === 'auto') actors.tell('routing', String(company.id), { type: 'pump' });
      res.json({ data: presentRoutingSettings(settings) });
    },
  }),
];
