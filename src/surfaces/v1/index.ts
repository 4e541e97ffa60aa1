import type { Router } from 'express';
import { surfaceRouter } from '../../http/surfaceRouter';
import type { SurfaceDeps, SurfaceEndpoint } from '../endpoint';
import { chatbotEndpoints } from './chatbots';
import { conversationEndpoints } from './conversations';
import { knowledgeEndpoints } from './knowledge';
import { meEndpoints } from './me';
import { messageEndpoints } from './messages';

export const V1_BASE = '/api/v1';

export const V1_ENDPOINTS: readonly SurfaceEndpoint[] = [...meEndpoints, ...chatbotEndpoints, ...conversationEndpoints, ...knowledgeEndpoints, ...messageEndpoints];

/** REST API v1: integrators' surface, opened by `api` tokens only. */
export function v1Surface(deps: SurfaceDeps): Router {
  return surfaceRouter({ base: V1_BASE, token: 'api' }, V1_ENDPOINTS, deps, deps.ctx.limiters);
}
