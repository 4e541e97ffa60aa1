import type { RequestListener } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Actors } from './actors/runtime/router';
import type { AppContext } from './context';
import type { Chatbot } from './models';
import type { Watchers } from './realtime/watchers';
import type { InboxPresence } from './realtime/inboxPresence';
import { openToEveryOrigin } from './http/cors';
import { errorHandler, routeNotFound } from './http/errorHandler';
import { withExpress } from './http/expressify';
import { hotRoutes } from './http/hotRoutes';
import { reservedLimiter, type ReservedLimiterOptions } from './limits/reservedLimiter';
import { requestIdOf } from './http/requestId';
import { loggedUrl, requestErrorObject, requestLogLevel } from './http/requestLog';
import { trustProxySetting } from './http/trustProxy';
import { opsRoutes } from './ops/opsServer';
import { openApiRoutes } from './openapi/routes';
import { AGENT_BASE, agentSurface } from './surfaces/agent';
import { leanInboxRoutes } from './surfaces/agent/leanInbox';
import { ENDPOINTS } from './surfaces/endpoints';
import { assetRoutes } from './surfaces/assets';
import { inboxAppRoutes } from './surfaces/inboxApp';
import { chatPageRoutes } from './surfaces/chatPage';
import { PORTAL_BASE, portalSurface } from './surfaces/portal';
import { V1_BASE, v1Surface } from './surfaces/v1';
import { answersWhole, anyOrigin, HOT_WIDGET_ENDPOINTS, WIDGET_BASE, widgetSurface } from './surfaces/widget';

const HEARTBEAT_PATH = /^\/widget\/[^/]+\/heartbeat(?:\?|$)/;
/** Liveness probes come every few seconds from every orchestrator: a successful one is not news. */
const HEALTH_PATH = /^\/healthz(?:\?|$)/;
/** One successful hot request in this many is logged (heartbeats, streams, state reads: most of a node's traffic). */
const HOT_LOG_ONE_IN = 100;

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
  const deps = { ctx, actors: runtime.actors, watchers: runtime.watchers, inboxPresence: runtime.inboxPresence };

  // First: the widget's hot routes skip the generic stack below, keeping what it does for them (src/http/hotRoutes.ts).
  const routeLimiter = (options: ReservedLimiterOptions) => reservedLimiter(ctx.redis, ctx.config.redisPrefix, options);
  const hot = hotRoutes({
      base: WIDGET_BASE,
      endpoints: HOT_WIDGET_ENDPOINTS,
      answeredWhole: answersWhole,
      app,
      deps,
      routeLimiter,
      staticHeaders: [securityHeaders, anyOrigin],
      logger: ctx.logger,
      observe: ctx.metrics.observeRequest,
      logOneIn: HOT_LOG_ONE_IN,
    });
  // Then the agent inbox's lean path (src/surfaces/agent/leanInbox.ts), the same way.
  const leanInbox = leanInboxRoutes({ deps, routeLimiter, staticHeaders: [securityHeaders], logger: ctx.logger, observe: ctx.metrics.observeRequest });
  const lean: RequestHandler = (req, res, next) =>
    hot(req, res, () => {
      withExpress(app, req, res);
      leanInbox(req, res, next);
    });
  hotRoutesOf.set(app, lean);
  app.use(lean);
  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: requestIdOf,
      customLogLevel: requestLogLevel,
      customErrorObject: requestErrorObject,
      // Heartbeats that fell back to this stack and successful /healthz probes are not news (failures still are).
      autoLogging: { ignore: (req) => (req.method === 'POST' && HEARTBEAT_PATH.test(req.url ?? '')) || (req.method === 'GET' && HEALTH_PATH.test(req.url ?? '')) },
      // Credentials in a query string (the widget's visitor id) must not reach the logs; the answer's
      // headers (helmet's dozen, ~800 bytes a line) say nothing its status does not.
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: loggedUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(ctx.metrics.observeRequests);
  app.use(securityHeaders);

  app.use(opsRoutes(ctx));

  app.use(assetRoutes({ appUrl: ctx.config.appUrl, demo: runtime.demo }));
  app.use(inboxAppRoutes());
  app.use(chatPageRoutes(ctx.config.appUrl));
  app.use(WIDGET_BASE, anyOrigin);
  app.use(PORTAL_BASE, portalOrigins);
  // No app-wide body parser: each surface parses after its IP limits or authentication (src/http/jsonBody.ts).
  app.use(V1_BASE, v1Surface(deps));
  app.use(PORTAL_BASE, portalSurface(deps));
  app.use(AGENT_BASE, agentSurface(deps));
  app.use(WIDGET_BASE, widgetSurface(deps));

  app.use(openApiRoutes(ctx.config.appUrl, ENDPOINTS));
  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}

const hotRoutesOf = new WeakMap<Express, RequestHandler>();

/**
 * The app as a node:http listener whose hot routes skip even express's own dispatch (its router
 * walk and final handler per request): the request and response go to the hot routes as node made
 * them (the heartbeat needs none of express's helpers; a route that does gets express's prototypes
 * there, src/http/expressify.ts), and anything else to the lean inbox and the app as usual.
 */
export function listenerOf(app: Express): RequestListener {
  const hot = hotRoutesOf.get(app);
  if (!hot) return app;
  return (req, res) => {
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    void hot(request, response, () => app(req, res));
  };
}

/**
 * Helmet's defaults (HSTS, nosniff, frame and referrer policies...) on every answer, except two that
 * would break what Parley is for: widget.js and the widget API are fetched from customers' sites
 * (so resources are cross-origin), and the HTML pages set their own Content-Security-Policy.
 */
const securityHeaders = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });

/** White-label portals run on their owners' own domains and call the portal API from the browser with a bearer token. */
const portalOrigins = openToEveryOrigin({ methods: 'GET, POST, PUT, PATCH, DELETE, OPTIONS', headers: 'Authorization, Content-Type' });
