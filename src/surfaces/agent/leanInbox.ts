import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { resolveToken } from '../../domain/accounts/tokens';
import type { z } from 'zod';
import type { InboxListing } from '../../domain/inbox/listInbox';
import { readInboxListText } from '../../domain/inbox/listText';
import { readInbox } from '../../domain/inbox/readInbox';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { inboxListJson } from '../../presenters/inboxListText';
import { unauthenticated } from '../../errors';
import { admit, bearerOf, type AuthContext } from '../../http/authenticate';
import type { DeclaredEndpoint } from '../../http/endpoint';
import { hotRoutes, type ObserveRequest } from '../../http/hotRoutes';
import type { ReservedLimiter, ReservedLimiterOptions } from '../../limits/reservedLimiter';
import type { SurfaceDeps } from '../endpoint';
import { AGENT_BASE } from './index';
import { answerInbox, inboxEndpoint, inboxQuery } from './inbox';

/** The surface's own authentication (src/http/authenticate.ts), as its token gate does it: the token is read on every request. */
async function authenticated(req: Request): Promise<AuthContext> {
  const bearer = bearerOf(req.headers.authorization);
  const token = bearer ? await resolveToken(bearer) : undefined;
  if (!token) throw unauthenticated();
  req.auth = admit(token, 'agent');
  return req.auth;
}

/**
 * A list without an open thread: the answer `answerInbox` gives, written as JSON text from the
 * page's fragments (src/domain/inbox/listText.ts) instead of parsed rows, presented items and
 * `res.json`'s stringify. Sent as `res.json` sends (its Content-Type, then `res.send`: ETag, length).
 */
async function answerList(res: Response, auth: AuthContext, listing: InboxListing, pollSeconds: number): Promise<void> {
  const now = new Date();
  const list = await readInboxListText(auth.company.id, auth.user.id, listing);
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(inboxListJson(list, { now, pollSeconds }));
}

/**
 * The endpoint as the lean path runs it. Declared public for `hotRoutes` (which authenticates nothing
 * itself) because its handler authenticates first, as the surface's token gate would: 401 and 403
 * still come before a 422 for the query.
 */
const leanEndpoint: DeclaredEndpoint<SurfaceDeps> = {
  ...inboxEndpoint,
  auth: 'none',
  handler: async (input, req, res) => {
    const auth = await authenticated(req);
    const { filter, q, before, conversation } = input.query() as z.output<typeof inboxQuery>;
    const listing = { filter, q, before };
    if (conversation === undefined) return answerList(res, auth, listing, pollSecondsOf(input.ctx.config));
    const first = async (publicId: string | null) => ({ auth, read: await readInbox(auth.company.id, auth.user.id, listing, publicId) });
    res.json(await answerInbox(input, first, listing, conversation));
  },
};

export interface LeanInboxOptions {
  deps: SurfaceDeps;
  /** The inbox has no route limit today; the dispatcher takes the factory all the same. */
  routeLimiter: (options: ReservedLimiterOptions) => ReservedLimiter;
  /** The headers every answer of the generic stack carries on this surface (helmet's). */
  staticHeaders: readonly RequestHandler[];
  logger: Logger;
  observe: ObserveRequest;
}

/**
 * `GET /api/agent/inbox` on the lean path of the widget's hot routes (src/http/hotRoutes.ts: request
 * id, helmet's headers, the error handler's JSON, the metrics histogram under the same route label,
 * and here every request logged, as the generic stack does), without express's router walk, the
 * surface's middleware chain and pino-http. Mounted before the generic stack (src/app.ts); a request
 * with a body, or anything `hotRoutes` does not take (HEAD, a trailing slash, ...), goes on to the
 * generic stack, which answers it as before. Why: docs/performance.md, "Agent inbox", third round; a list
 * without an open thread is written from JSON text Postgres builds: the fourth round.
 */
export function leanInboxRoutes(options: LeanInboxOptions): RequestHandler {
  const lean = hotRoutes({ ...options, base: AGENT_BASE, endpoints: [leanEndpoint], answeredWhole: () => false, logOneIn: 1 });
  return (req, res, next) => {
    const length = req.headers['content-length'];
    if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) return next();
    return lean(req, res, next);
  };
}
