import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { TokenAbility } from '../../../config/roles';
import { isLive, resolveToken } from '../../domain/accounts/tokens';
import { readListAsToken } from '../../domain/inbox/listAsToken';
import type { z } from 'zod';
import type { InboxListing } from '../../domain/inbox/listInbox';
import { readInboxListText, type InboxListText } from '../../domain/inbox/listText';
import { readInbox } from '../../domain/inbox/readInbox';
import { pollSecondsOf } from '../../domain/visitors/presence';
import { inboxListJson } from '../../presenters/inboxListText';
import type { InboxClock } from '../../presenters/inbox';
import { unauthenticated } from '../../errors';
import { admit, bearerOf, type AuthContext } from '../../http/authenticate';
import type { DeclaredEndpoint } from '../../http/endpoint';
import { hotRoutes, type ObserveRequest } from '../../http/hotRoutes';
import { hashSecret, parseToken } from '../../security/tokens';
import type { ReservedLimiter, ReservedLimiterOptions } from '../../limits/reservedLimiter';
import type { SurfaceDeps } from '../endpoint';
import { AGENT_BASE } from './index';
import { answerInbox, inboxEndpoint, inboxQuery } from './inbox';

const ABILITY: TokenAbility = 'agent';

/** The surface's own authentication (src/http/authenticate.ts), as its token gate does it: the token is read on every request. */
async function authenticated(req: Request): Promise<AuthContext> {
  const bearer = bearerOf(req.headers.authorization);
  const token = bearer ? await resolveToken(bearer) : undefined;
  if (!token) throw unauthenticated();
  req.auth = admit(token, ABILITY);
  return req.auth;
}

/**
 * A list without an open thread: the answer `answerInbox` gives, written as JSON text from the
 * page's fragments (src/domain/inbox/listText.ts) instead of parsed rows, presented items and
 * `res.json`'s stringify. Sent as `res.json` sends (its Content-Type, then `res.send`: ETag, length).
 */
async function answerList(res: Response, auth: AuthContext, listing: InboxListing, pollSeconds: number): Promise<void> {
  const now = new Date();
  sendList(res, await readInboxListText(auth.company.id, auth.user.id, listing), { now, pollSeconds });
}

/** `clock.now`: taken before the list is read, as `answerInbox` takes it. */
function sendList(res: Response, list: InboxListText, clock: InboxClock): void {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(inboxListJson(list, clock));
}

/**
 * A list without an open thread or a search, with the bearer token checked in the list's own
 * statement (src/domain/inbox/listAsToken.ts): one round trip instead of two. The row of the token
 * goes through the same checks as every authenticated request's (`isLive`, then `admit`: the same
 * 401 and 403 answers); should the statement not have let in a token those checks let in (its
 * expiry between the two clocks' readings cannot differ, but the node's checks are the definition),
 * the list is read again as the token's agent.
 */
async function answerListWithToken(req: Request, res: Response, listing: InboxListing, pollSeconds: number): Promise<void> {
  const bearer = bearerOf(req.headers.authorization);
  const presented = bearer ? parseToken(bearer) : undefined;
  if (!presented) throw unauthenticated();
  const now = new Date();
  const check = { tokenId: presented.id, tokenHash: hashSecret(presented.secret), now, ability: ABILITY };
  const { token, list } = await readListAsToken(check, listing);
  if (!token || !isLive(token, presented.secret, now)) throw unauthenticated();
  const auth = (req.auth = admit(token, ABILITY));
  if (list) return sendList(res, list, { now, pollSeconds });
  return answerList(res, auth, listing, pollSeconds);
}

/**
 * The endpoint as the lean path runs it. Declared public for `hotRoutes` (which authenticates nothing
 * itself) because its handler authenticates: 401 and 403 still come before a 422 for the query (a
 * query the schema refuses is answered after the token is checked on its own).
 */
const leanEndpoint: DeclaredEndpoint<SurfaceDeps> = {
  ...inboxEndpoint,
  auth: 'none',
  handler: async (input, req, res) => {
    let query: z.output<typeof inboxQuery>;
    try {
      query = input.query() as z.output<typeof inboxQuery>;
    } catch (invalid) {
      await authenticated(req);
      throw invalid;
    }
    const { filter, q, before, conversation } = query;
    const listing = { filter, q, before };
    const pollSeconds = pollSecondsOf(input.ctx.config);
    if (conversation === undefined && q === undefined) return answerListWithToken(req, res, listing, pollSeconds);
    const auth = await authenticated(req);
    if (conversation === undefined) return answerList(res, auth, listing, pollSeconds);
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
