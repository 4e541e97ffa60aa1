import { presentQueuePosition } from '../../presenters/realtimeEvents';
import { conversationChannel } from '../../realtime/channels';
import type { RealtimeEmitter } from '../../realtime/emitter';

/**
 * Not part of a conversation's durable order (nothing is stored): `seq` 0, so a widget neither counts
 * it nor sees a gap in it. A missed one is made good by the next, and by the state reads.
 */
const QUEUE_SEQ = 0;

/**
 * Tells waiting widgets their place as the queue moves (`queue.position` on the conversation's
 * channel): after each routing pass, only those whose place changed since the last pass of this
 * activation. A new activation (after a failover) tells each once again.
 */
export class QueuePositions {
  private told = new Map<string, number>();

  constructor(private readonly realtime: RealtimeEmitter) {}

  announce(waiting: readonly string[]): void {
    const now = new Map(waiting.map((conversationId, index) => [conversationId, index + 1]));
    for (const [conversationId, position] of now) {
      if (this.told.get(conversationId) !== position) this.realtime.emit(conversationChannel(conversationId), 'queue.position', presentQueuePosition(conversationId, position), QUEUE_SEQ);
    }
    this.told = now;
  }
}
