import { z } from 'zod';
import { mayJoinWithoutLookup, parseChannel } from './channels';
import type { RealtimeSocket, SubscribeAck } from './events';
import type { SessionGuard } from './sessionGuard';
import type { ChannelSigner } from './signature';

const subscribePayload = z.object({ channel: z.string().max(200), auth: z.string().max(200) });
const unsubscribePayload = z.object({ channel: z.string().max(200) });

export interface SubscriptionRules {
  signer: ChannelSigner;
  sessions: SessionGuard;
  /** Resolves once the node's fan-out subscription for a freshly joined room is in place. */
  settled: () => Promise<void>;
}

/**
 * The socket protocol: `subscribe {channel, auth}` and `unsubscribe {channel}`, each answered through the
 * ack callback when the client gave one. `{ok: true}` means events published from then on arrive. The
 * socket's token is checked again on every subscribe: one that ended refuses and closes the socket.
 */
export function handleSubscriptions(socket: RealtimeSocket, { signer, sessions, settled }: SubscriptionRules): void {
  socket.on('subscribe', (...args) => {
    const { payload, ack } = split(args);
    const verdict = admit(socket, signer, payload);
    if (!verdict.ok) return ack?.(verdict);
    sessions
      .stillValid(socket)
      .then(async (valid) => {
        if (!valid) {
          ack?.({ ok: false, message: 'Your session has ended. Sign in again.' });
          return void socket.disconnect(true);
        }
        if (socket.disconnected) return; // joining now would leave a room entry behind for a socket that is gone
        await socket.join(verdict.channel);
        await settled();
        ack?.({ ok: true });
      })
      .catch(() => ack?.({ ok: false, message: 'The subscription could not be confirmed. Try again.' }));
  });

  socket.on('unsubscribe', (...args) => {
    const { payload, ack } = split(args);
    const parsed = unsubscribePayload.safeParse(payload);
    if (!parsed.success) return ack?.({ ok: false, message: 'The unsubscribe payload must be {channel}.' });
    // Only channel rooms: a socket must not be able to leave its own id room or its widget room.
    if (parseChannel(parsed.data.channel)) void socket.leave(parsed.data.channel);
    ack?.({ ok: true });
  });
}

type Verdict = { ok: true; channel: string } | { ok: false; message: string };

function admit(socket: RealtimeSocket, signer: ChannelSigner, payload: unknown): Verdict {
  const refuse = (message: string): Verdict => ({ ok: false, message });
  const identity = socket.data;
  if (identity.kind !== 'agent') return refuse('Widget connections cannot subscribe to channels.');
  const parsed = subscribePayload.safeParse(payload);
  if (!parsed.success) return refuse('The subscribe payload must be {channel, auth}.');
  const channel = parseChannel(parsed.data.channel);
  if (!channel) return refuse('Unknown channel.');
  if (!mayJoinWithoutLookup(identity, channel)) return refuse('You may not join this channel.');
  if (!signer.verify(socket.id, channel.name, parsed.data.auth)) return refuse('Invalid channel authorization.');
  return { ok: true, channel: channel.name };
}

type Ack = (reply: SubscribeAck) => void;

/** The payload and the ack, wherever the client put them (an ack alone arrives as the only argument). */
export function split(args: unknown[]): { payload: unknown; ack?: Ack } {
  const last = args.at(-1);
  if (typeof last !== 'function') return { payload: args[0] };
  return { payload: args.length > 1 ? args[0] : undefined, ack: (reply) => void (last as Ack)(reply) };
}
