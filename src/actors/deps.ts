import type { AppContext } from '../context';
import type { RealtimeEmitter } from '../realtime/emitter';
import type { InboxPresence } from '../realtime/inboxPresence';
import type { WatchFollow } from '../realtime/watchPoll';
import type { Actors } from './runtime/router';

/** What actor behaviours are built with: the process services, the realtime emitter, and the router to other actors. */
export interface ActorDeps {
  ctx: AppContext;
  realtime: RealtimeEmitter;
  actors: Actors;
  /** Whether any agent has the conversation (public id) open, on any node, read once a period for all of the node's streams; absent: assume someone does. */
  watches?: { follow(conversationId: string): WatchFollow };
  /** Which agents have an inbox socket on a live node (the router's "available"). */
  inboxPresence: Pick<InboxPresence, 'connected'>;
}
