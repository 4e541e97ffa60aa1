import type { AppContext } from '../context';
import type { RealtimeEmitter } from '../realtime/emitter';
import type { InboxPresence } from '../realtime/inboxPresence';
import type { Actors } from './runtime/router';

/** What actor behaviours are built with: the process services, the realtime emitter, and the router to other actors. */
export interface ActorDeps {
  ctx: AppContext;
  realtime: RealtimeEmitter;
  actors: Actors;
  /** Whether any agent has the conversation (public id) open, on any node; absent: assume someone does. */
  watched?: (conversationId: string) => Promise<boolean>;
  /** Which agents have an inbox socket on a live node (the router's "available"). */
  inboxPresence: Pick<InboxPresence, 'connected'>;
}
