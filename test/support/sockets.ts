import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { RealtimeEmitter } from '../../src/realtime/emitter';
import type { RealtimeEventName } from '../../src/realtime/events';
import { TEST_ENV } from './env';

export type ClientSocket = Socket;
export interface Envelope {
  channel: string;
  event: string;
  data: unknown;
  seq: number;
}
export interface Refusal {
  message: string;
  data?: { code?: string };
}

const WAIT_MS = 3000;

/** Extra client options, e.g. the `ca` of a TLS server with a self-signed certificate. */
export type ConnectOptions = Partial<ManagerOptions & SocketOptions>;

function client(baseUrl: string, auth: Record<string, unknown>, options: ConnectOptions): ClientSocket {
  return io(baseUrl, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false, forceNew: true, timeout: WAIT_MS, ...options });
}

/** A connected socket (WebSocket only); rejects with the server's connect_error when it refuses. */
export function connect(baseUrl: string, auth: Record<string, unknown>, options: ConnectOptions = {}): Promise<ClientSocket> {
  const socket = client(baseUrl, auth, options);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/** The connect_error of a connection the server must refuse. */
export async function refused(baseUrl: string, auth: Record<string, unknown>): Promise<Refusal> {
  try {
    const socket = await connect(baseUrl, auth);
    socket.close();
  } catch (error) {
    return error as Refusal;
  }
  throw new Error(`connection with ${JSON.stringify(Object.keys(auth))} was accepted`);
}

export function subscribe(socket: ClientSocket, channel: string, auth: string): Promise<{ ok: boolean; message?: string }> {
  return socket.timeout(WAIT_MS).emitWithAck('subscribe', { channel, auth });
}

export interface Received {
  /** The Socket.IO event name. */
  name: string;
  payload: Envelope;
}

/** Every event a socket receives, in order, and a way to wait for one. */
export class Inbox {
  readonly received: Received[] = [];
  #waiters: Array<() => void> = [];

  constructor(socket: ClientSocket) {
    socket.onAny((name: string, payload: Envelope) => {
      this.received.push({ name, payload });
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** The first received event that matches, waiting up to 3 s. */
  async next(match: (received: Received) => boolean): Promise<Received> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${WAIT_MS} ms; got ${JSON.stringify(this.received)}`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }
}

/** The channel authorization, recomputed from APP_KEY without the server's code: HKDF, then HMAC-SHA256. */
export function expectedAuth(socketId: string, channel: string): string {
  const appKey = Buffer.from(TEST_ENV.APP_KEY!.slice('base64:'.length), 'base64');
  const key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), 'parley:broadcasting', 32));
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${keyId}:${createHmac('sha256', key).update(`${socketId}:${channel}`).digest('hex')}`;
}

/**
 * Emits any data under any event name. The transport tests check delivery (rooms, nodes, envelopes),
 * not the shapes the presenters own, so they send small markers instead of whole events.
 */
export function emitRaw(emitter: RealtimeEmitter, channel: string, event: RealtimeEventName, data: unknown, seq: number): void {
  emitter.emit(channel, event, data as never, seq);
}
