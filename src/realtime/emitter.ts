import { parseChannel, widgetRoom } from './channels';
import { reachesWidget, type RealtimeEnvelope, type RealtimeEventData, type RealtimeEventName, type RealtimeServer } from './events';

/** What actors depend on to publish; delivery is best effort (clients catch up over HTTP on a `seq` gap). */
export interface RealtimeEmitter {
  emit<E extends RealtimeEventName>(channel: string, event: E, data: RealtimeEventData[E], seq: number): void;
}

/** Emits through the adapter, so the sockets of a room are reached on whichever node holds them. */
export function socketEmitter(io: RealtimeServer): RealtimeEmitter {
  return {
    emit(channel, event, data, seq) {
      const parsed = parseChannel(channel);
      if (!parsed) throw new Error(`Not a realtime channel: ${channel}`);
      const envelope: RealtimeEnvelope = { channel, event, data, seq };
      // Widened to the union: socket.io's emit typing cannot resolve a generic event name.
      const name: RealtimeEventName = event;
      const send = (room: string) => io.to(room).emit(name, envelope);
      send(channel);
      // Two single-room emits rather than one to both: each stays on that room's own sharded channel.
      if (parsed.kind === 'conversation' && reachesWidget(event, data)) send(widgetRoom(parsed.conversationId));
    },
  };
}
