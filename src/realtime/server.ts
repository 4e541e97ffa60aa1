import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { Actors } from '../actors/runtime/router';
import type { AppContext } from '../context';
import { widgetRoom } from './channels';
import { connectionAuth } from './connectionAuth';
import { socketEmitter, type RealtimeEmitter } from './emitter';
import type { RealtimeServer, SocketIdentity } from './events';
import { localFanOut, redisFanOut } from './fanOut';
import { guardSessions } from './sessionGuard';
import { ChannelSigner } from './signature';
import { handleSubscriptions } from './subscriptions';
import { handleTyping } from './typing';

export interface Realtime extends RealtimeEmitter {
  io: RealtimeServer;
  /** Sockets connected to this node, per kind; counted when asked (a metrics scrape). */
  socketsByKind(): Record<SocketIdentity['kind'], number>;
  /** Disconnects every socket and leaves the fan-out; resolves once the shared HTTP server has closed too. */
  close(): Promise<void>;
}

export const REALTIME_PATH = '/socket.io';
// Clients send only subscribe/unsubscribe and typing; anything bigger is not ours.
const MAX_CLIENT_PACKET_BYTES = 16 * 1024;

/**
 * Socket.IO on this node's HTTP server (docs/api.md "Realtime"), fanned out through Redis in cluster mode.
 * `actors` carries what clients send (typing) to the conversation's owner.
 */
export async function createRealtime(httpServer: HttpServer, ctx: AppContext, actors: Actors): Promise<Realtime> {
  const { config, logger } = ctx;
  const fanOut = config.redisUrl ? await redisFanOut(config.redisUrl, config.redisPrefix, logger) : localFanOut();
  const io: RealtimeServer = new Server(httpServer, {
    path: REALTIME_PATH,
    // The widget loads the Socket.IO client from here (/socket.io/socket.io.min.js) only once a conversation exists.
    serveClient: true,
    maxHttpBufferSize: MAX_CLIENT_PACKET_BYTES,
    // Widgets connect from customers' sites; credentials travel in the auth payload, never in cookies.
    cors: { origin: '*' },
    ...(fanOut.adapter ? { adapter: fanOut.adapter } : {}),
  });
  const signer = new ChannelSigner(config.appKey);
  const sessions = await guardSessions(io, ctx.db.url, logger).catch(async (error: unknown) => {
    await fanOut.close();
    throw error;
  });

  io.use(connectionAuth(logger));
  // The widget's room is joined before its CONNECT goes out, so a connected widget already receives.
  io.use((socket, next) => {
    if (socket.data.kind !== 'widget') return next();
    void socket.join(widgetRoom(socket.data.conversationId));
    fanOut.settled().then(
      () => next(),
      () => next(new Error('The connection could not be set up. Try again.')),
    );
  });
  // Widget sockets get the handlers too, so their subscribe is answered (refused) rather than left hanging.
  io.on('connection', (socket) => {
    handleSubscriptions(socket, { signer, sessions, settled: fanOut.settled });
    handleTyping(socket, actors);
  });

  const emitter = socketEmitter(io);
  let closing: Promise<void> | undefined;
  return {
    io,
    emit: emitter.emit,
    socketsByKind: () => {
      const counts = { agent: 0, widget: 0 };
      for (const socket of io.of('/').sockets.values()) counts[socket.data.kind] += 1;
      return counts;
    },
    close: () =>
      (closing ??= (async () => {
        await io.close();
        await Promise.all([fanOut.close(), sessions.close()]);
      })()),
  };
}
