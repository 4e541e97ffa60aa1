import type { Router } from 'express';
import { surfaceRouter } from '../../http/surfaceRouter';
import type { SurfaceDeps, SurfaceEndpoint } from '../endpoint';
import { assistEndpoints } from './assist';
import { broadcastingEndpoints } from './broadcasting';
import { catalogueEndpoints } from './catalogue';
import { conversationEndpoints } from './conversations';
import { customerContextEndpoints } from './customerContext';
import { inboxEndpoints } from './inbox';
import { pushEndpoints } from './push';
import { routingEndpoints } from './routing';
import { sessionEndpoints } from './session';
import { visitorEndpoints } from './visitors';

export const AGENT_BASE = '/api/agent';

export const AGENT_ENDPOINTS: readonly SurfaceEndpoint[] = [
  ...sessionEndpoints,
  ...broadcastingEndpoints,
  ...inboxEndpoints,
  ...conversationEndpoints,
  ...visitorEndpoints,
  ...catalogueEndpoints,
  ...customerContextEndpoints,
  ...assistEndpoints,
  ...pushEndpoints,
  ...routingEndpoints,
];

/** Agent app API: inbox apps, opened by `agent` tokens only (sign-in aside). */
export function agentSurface(deps: SurfaceDeps): Router {
  return surfaceRouter({ base: AGENT_BASE, token: 'agent' }, AGENT_ENDPOINTS, deps, deps.ctx.limiters);
}
