import type { Router } from 'express';
import { surfaceRouter } from '../../http/surfaceRouter';
import type { SurfaceDeps, SurfaceEndpoint } from '../endpoint';
import { chatbotEndpoints } from './chatbots';
import { keyEndpoints } from './keys';
import { knowledgeEndpoints } from './knowledge';
import { routingEndpoints } from './routing';
import { sessionEndpoints } from './session';
import { webhookEndpoints } from './webhooks';
import { workspaceEndpoints } from './workspace';

export const PORTAL_BASE = '/api/portal';

export const PORTAL_ENDPOINTS: readonly SurfaceEndpoint[] = [...sessionEndpoints, ...chatbotEndpoints, ...knowledgeEndpoints, ...keyEndpoints, ...workspaceEndpoints, ...webhookEndpoints, ...routingEndpoints];

/** Portal API: white-label portals, opened by `portal` tokens only (sign-in aside). */
export function portalSurface(deps: SurfaceDeps): Router {
  return surfaceRouter({ base: PORTAL_BASE, token: 'portal' }, PORTAL_ENDPOINTS, deps, deps.ctx.limiters);
}
