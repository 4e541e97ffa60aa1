import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { TokenAbility } from '../../../config/roles';
import { plainRows } from '../../db/plainRows';
import { tokenFromRow } from '../../domain/accounts/loadToken';
import { isLive, resolveToken } from '../../domain/accounts/tokens';
import { type InboxListing } from '../../domain/inbox/listInbox';
import { inboxReadOf, inboxStatement, isPreparable, readInbox, type InboxStatementRow } from '../../domain/inbox/readInbox';
import { unauthenticated } from '../../errors';
import { admit, bearerOf, type AuthContext } from '../../http/authenticate';
import type { DeclaredEndpoint } from '../../http/endpoint';
import { hotRoutes, type ObserveRequest } from '../../http/hotRoutes';
import type { LimiterFactory } from '../../limits/limiters';
import { Conversation } from '../../models';
import { hashSecret, parseToken } from '../../security/tokens';
import type { SurfaceDeps } from '../endpoint';
import { AGENT_BASE } from './index';
import { answerInbox, inboxEndpoint } from './inbox';

const ABILITY: TokenAbility = 'agent';

/**
 * Which user and workspace each token id belongs to, learnt from a full authentication: neither ever
 * changes for a token, so this is a hint, never a grant. The statement checks the token itself (live,
 * its secret, its surface, nobody suspended) and that it is still this user's of this workspace.
 */
const owners = new Map<number, { userId: number; companyId: number }>();
/** Bounds the hint (a few bytes each): past it, the next request of each token authenticates on its own once more. */
const OWNERS_KEPT = 10_000;

function remember(auth: AuthContext): void {
  if (owners.size >= OWNERS_KEPT) owners.clear();
  owners.set(auth.token.id, { userId: auth.user.id, companyId: auth.company.id });
}

/** The surface's own authentication (src/http/authenticate.ts), as its token gate does it. */
async function authenticated(req: Request): Promise<AuthContext> {
  const bearer = bearerOf(req.headers.authorization);
  const token = bearer ? await resolveToken(bearer) : undefined;
  if (!token) throw unauthenticated();
  req.auth = admit(token, ABILITY);
  remember(req.auth);
  return req.auth;
}

/**
 * The first read of a response with the bearer token checked in the inbox's own statement: one round
 * trip instead of two, and no window (the token row is read in the same snapshot as the inbox, so a
 * revocation committed before the request is seen by it, on any node). The node then applies the
 * same checks as every authenticated request (`isLive`, `admit`) to the row it got back: the same
 * 401 and 403 answers. A token this process has not seen yet authenticates on its own first.
 */
async function firstRead(req: Request, listing: InboxListing, publicId: string | null) {
  const bearer = bearerOf(req.headers.authorization);
  const presented = bearer ? parseToken(bearer) : undefined;
  const owner = presented && owners.get(presented.id);
  if (!presented || !owner) {
    const auth = await authenticated(req);
    return { auth, read: await readInbox(auth.company.id, auth.user.id, listing, publicId) };
  }
  const now = new Date();
  const check = { tokenId: presented.id, tokenHash: hashSecret(presented.secret), now, ability: ABILITY };
  const { text, values } = await inboxStatement(owner.companyId, owner.userId, listing, publicId, check);
  const [row] = await plainRows<InboxStatementRow & Record<string, unknown>>(Conversation.sequelize!, text, values, { prepared: isPreparable(listing) });
  const token = row && tokenFromRow(row);
  if (!token || !isLive(token, presented.secret, now)) throw unauthenticated();
  const auth = (req.auth = admit(token, ABILITY));
  if (row.admitted === true) return { auth, read: inboxReadOf(row) };
  // Let in, but not as the hint said (which cannot happen while tokens keep their owners): read as the token says.
  remember(auth);
  return { auth, read: await readInbox(auth.company.id, auth.user.id, listing, publicId) };
}

/**
 * The endpoint as the lean path runs it. Declared public for `hotRoutes` (which authenticates nothing
 * itself) because its handler authenticates: a query the schema refuses is answered after the token
 * is checked on its own, so 401 and 403 still come before 422, as behind the surface's token gate.
 */
const leanEndpoint: DeclaredEndpoint<SurfaceDeps> = {
  ...inboxEndpoint,
  auth: 'none',
  handler: async (input, req, res) => {
    let query: { filter: InboxListing['filter']; q?: string; before?: string; conversation?: string };
    try {
      query = input.query() as typeof query;
    } catch (invalid) {
      await authenticated(req);
      throw invalid;
    }
    const listing = { filter: query.filter, q: query.q, before: query.before };
    res.json(await answerInbox(input, (publicId) => firstRead(req, listing, publicId), listing, query.conversation));
  },
};

export interface LeanInboxOptions {
  deps: SurfaceDeps;
  limiters: LimiterFactory;
  /** The headers every answer of the generic stack carries on this surface (helmet's). */
  staticHeaders: readonly RequestHandler[];
  logger: Logger;
  observe: ObserveRequest;
}

/**
 * `GET /api/agent/inbox` on the lean path of the widget's hot routes (src/http/hotRoutes.ts: request
 * id, helmet's headers, the error handler's JSON, the metrics histogram under the same route label,
 * and here every request logged, as the generic stack does), with the token checked in the inbox's
 * statement. Mounted before the generic stack (src/app.ts); a request with a body, or anything
 * `hotRoutes` does not take (HEAD, a trailing slash, ...), goes on to the generic stack, which
 * answers it as before. Why: docs/performance.md, "Agent inbox", third round.
 */
export function leanInboxRoutes(options: LeanInboxOptions): RequestHandler {
  const lean = hotRoutes({ ...options, base: AGENT_BASE, endpoints: [leanEndpoint], logOneIn: 1 });
  return (req, res, next) => {
    const length = req.headers['content-length'];
    if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) return next();
    return lean(req, res, next);
  };
}
