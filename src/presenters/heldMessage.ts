import type { DeliveredMessage } from '../actors/visitor/protocol';
import type { HeldMessage } from '../domain/visitors/heldMessages';
import { isoWithOffset } from './time';

/** A held agent/system message as a heartbeat hands it to the widget: `{id, role, content, at}`. */
export const presentHeldMessage = (message: HeldMessage): DeliveredMessage => ({
  id: message.id,
  role: message.role,
  content: message.content,
  at: isoWithOffset(message.createdAt),
});
