import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Actors } from './actors/runtime/router';
import type { AppContext } from './context';
import type { Chatbot } from './models';
import type { Watchers } from './realtime/watchers';
import type { InboxPresence } from './realtime/inboxPresence';
import { openToEveryOrigin } from './http/cors';
import { errorHandler, routeNotFound } from './http/errorHandler';
import { loggedUrl, requestErrorObject, requestLogLevel } from './http/requestLog';
import { trustProxySetting } from './http/trustProxy';
import { opsRoutes } from './ops/opsServer';
import { openApiRoutes } from './openapi/routes';
import { AGENT_BASE, agentSurface } from './surfaces/agent';
import { ENDPOINTS } from './surfaces/endpoints';
import { assetRoutes } from './surfaces/assets';
import { inboxAppRoutes } from './surfaces/inboxApp';
import { PORTAL_BASE, portalSurface } from './surfaces/portal';
import { V1_BASE, v1Surface } from './surfaces/v1';
import { anyOrigin, WIDGET_BASE, widgetSurface } from './surfaces/widget';

const REQUEST_ID = /^[\w.-]{1,100}$/;
const HEARTBEAT_PATH = /^\/widget\/[^/]+\/heartbeat(?:\?|$)/;

/** The runtime parts surfaces reach beyond the context: the actors (wherever they live) and who is watching what. */
export interface AppRuntime {
  actors: Actors;
  /** Who has each conversation open (the active conversation's `watchers`). */
  watchers: Pick<Watchers, 'of'>;
  /** Which agents have the inbox open (the agent's routing state); absent: nobody counts as connected. */
  inboxPresence?: Pick<InboxPresence, 'connected'>;
  /** Where the demo workspace is on (embedded mode, PARLEY_DEMO=1): the chatbot the page at `/` embeds. */
  demo?: Pick<Chatbot, 'publicKey' | 'name'>;
}

/** The express app: shared middleware, operations endpoints, then each surface as its own sub-router. */
export function createApp(ctx: AppContext, runtime: AppRuntime): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(ctx.config.trustProxy));

  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: requestLogLevel,
      customErrorObject: requestErrorObject,
      // Widget heartbeats are the hottest route (every open page, every few seconds); a successful one is not news.
      autoLogging: { ignore: (req) => req.method === 'POST' && HEARTBEAT_PATH.test(req.url ?? '') },
      // Credentials in a query string (the widget's visitor id) must not reach the logs.
      serializers: { req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: loggedUrl(req.url) }) },
    }),
  );
  app.use(ctx.metrics.observeRequests);
  app.use(securityHeaders);

  app.use(opsRoutes(ctx));

  app.use(assetRoutes({ appUrl: ctx.config.appUrl, demo: runtime.demo }));
  app.use(inboxAppRoutes());
  app.use(WIDGET_BASE, anyOrigin);
  app.use(PORTAL_BASE, portalOrigins);
  // No app-wide body parser: each surface parses after its IP limits or authentication (src/http/jsonBody.ts).
  const deps = { ctx, actors: runtime.actors, watchers: runtime.watchers, inboxPresence: runtime.inboxPresence };
  app.use(V1_BASE, v1Surface(deps));
  app.use(PORTAL_BASE, portalSurface(deps));
  app.use(AGENT_BASE, agentSurface(deps));
  app.use(WIDGET_BASE, widgetSurface(deps));

  app.use(openApiRoutes(ctx.config.appUrl, ENDPOINTS));
  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}

/**
 * Helmet's defaults (HSTS, nosniff, frame and referrer policies...) on every answer, except two that
 * would break what Parley is for: widget.js and the widget API are fetched from customers' sites
 * (so resources are cross-origin), and the HTML pages set their own Content-Security-Policy.
 */
const securityHeaders = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });

/** White-label portals run on their owners' own domains and call the portal API from the browser with a bearer token. */
const portalOrigins = openToEveryOrigin({ methods: 'GET, POST, PUT, PATCH, DELETE, OPTIONS', headers: 'Authorization, Content-Type' });
