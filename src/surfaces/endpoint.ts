import type { Actors } from '../actors/runtime/router';
import type { AppContext } from '../context';
import type { Watchers } from '../realtime/watchers';
import type { InboxPresence } from '../realtime/inboxPresence';
import { endpointsOf, type DeclaredEndpoint } from '../http/endpoint';

/** What every surface handler is given: the process's services, the actors (wherever they live) and who is watching what. */
export interface SurfaceDeps {
  ctx: AppContext;
  actors: Actors;
  watchers: Pick<Watchers, 'of'>;
  /** Which agents have the inbox open; absent in apps built without sockets (nobody counts as connected). */
  inboxPresence?: Pick<InboxPresence, 'connected'>;
}

/** Declares one endpoint of a surface: its documentation, checks and handler (src/http/endpoint.ts). */
export const endpoint = endpointsOf<SurfaceDeps>();

export type SurfaceEndpoint = DeclaredEndpoint<SurfaceDeps>;
