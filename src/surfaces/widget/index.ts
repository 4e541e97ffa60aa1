import type { Router } from 'express';
import { openToEveryOrigin } from '../../http/cors';
import { surfaceRouter } from '../../http/surfaceRouter';
import type { SurfaceDeps, SurfaceEndpoint } from '../endpoint';
import { configEndpoints } from './config';
import { conversationEndpoints, VISITOR_HEADER } from './conversation';
import { IDENTITY_HEADER } from './customerConversation';
import { CONTINUE_HEADER } from './continueLink';
import { feedbackEndpoints } from './feedback';
import { heartbeatEndpoints } from './heartbeat';
import { streamEndpoints } from './stream';

export const WIDGET_BASE = '/widget';

export const WIDGET_ENDPOINTS: readonly SurfaceEndpoint[] = [...configEndpoints, ...streamEndpoints, ...conversationEndpoints, ...heartbeatEndpoints, ...feedbackEndpoints];

/**
 * The routes every open page calls all the time (the beat, the answer stream, the state catch-up):
 * answered ahead of the generic express stack (src/http/hotRoutes.ts), with the same checks.
 */
const HOT_PATHS = new Set(['post /widget/{key}/heartbeat', 'post /widget/{key}/stream', 'get /widget/{key}/conversation', 'get /widget/{key}/conversations/{conversation}']);
export const HOT_WIDGET_ENDPOINTS: readonly SurfaceEndpoint[] = WIDGET_ENDPOINTS.filter((e) => HOT_PATHS.has(`${e.method} ${e.path}`));

/** Of those, the beat answers with `answerJson` (src/http/hotAnswer.ts): its headers are written with it, all at once. */
const WHOLE_ANSWERS = new Set(['post /widget/{key}/heartbeat']);
export const answersWhole = (e: SurfaceEndpoint): boolean => WHOLE_ANSWERS.has(`${e.method} ${e.path}`);

/**
 * Widget endpoints (docs/api.md "Widget"): public, no token, called from visitors' browsers on
 * customers' sites. The chatbot's public key in the path is the only credential.
 */
export function widgetSurface(deps: SurfaceDeps): Router {
  return surfaceRouter({ base: WIDGET_BASE }, WIDGET_ENDPOINTS, deps, deps.ctx.limiters);
}

/**
 * Any site may embed the widget; the visitor id travels in the body or, on the state reads, in the
 * X-Visitor-Id header (kept out of URLs and so out of logs), never in a cookie; so does the identity token.
 */
export const anyOrigin = openToEveryOrigin({ methods: 'GET, POST, OPTIONS', headers: `Content-Type, ${VISITOR_HEADER}, ${IDENTITY_HEADER}, ${CONTINUE_HEADER}` });
