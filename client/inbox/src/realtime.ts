import { post, ROOT, storedToken } from './api.js';
import type { Envelope } from './types.js';

// The little of the Socket.IO client this app uses; the server serves the client script itself.
interface Socket {
  id?: string;
  connected: boolean;
  on(event: string, listener: (...args: never[]) => void): void;
  onAny(listener: (event: string, envelope: Envelope) => void): void;
  timeout(ms: number): { emitWithAck(event: string, payload: unknown): Promise<{ ok: boolean; message?: string }> };
  connect(): void;
  disconnect(): void;
}
type Io = (url: string, options: Record<string, unknown>) => Socket;

export interface RealtimeHandlers {
  event(envelope: Envelope): void;
  /** Connected (again): whatever happened meanwhile must be fetched over HTTP. */
  connected(): void;
  state(online: boolean): void;
  /** The open thread's own channel (its AI deltas) is subscribed. */
  watching(conversationId: string): void;
  /** The server refused the token. */
  refused(): void;
}

const SOCKET_PATH = new URL('../socket.io', ROOT).pathname;
const ACK_MS = 5000;

/** The ES module build of the Socket.IO client, as the server serves it: no global, loaded only once signed in. */
async function loadClient(): Promise<Io> {
  const module = (await import(`${SOCKET_PATH}/socket.io.esm.min.js`)) as { io?: Io };
  if (typeof module.io !== 'function') throw new Error('The realtime client did not load.');
  return module.io;
}

/**
 * One socket for the signed-in agent: the company channel always, plus the open thread's channel.
 * Events are a fast path only; every (re)connect asks the app to catch up over HTTP.
 */
export class Realtime {
  private socket: Socket | null = null;
  private thread: string | null = null;
  private closed = false;

  constructor(
    private readonly companyId: number,
    /** The agent's own channel carries `notification` (a push's payload, for open tabs), `read`, `suggestion.ready`. */
    private readonly userId: number,
    private readonly handlers: RealtimeHandlers,
  ) {}

  async start(): Promise<void> {
    let io: Io;
    try {
      io = await loadClient();
    } catch {
      this.handlers.state(false);
      return;
    }
    if (this.closed) return;
    const socket = io(location.origin, {
      path: SOCKET_PATH,
      // Read at every (re)connect, so a rotated token is the one presented.
      auth: (send: (auth: { token: string | null }) => void) => send({ token: storedToken() }),
      transports: ['websocket', 'polling'],
      tryAllTransports: true,
    });
    this.socket = socket;
    socket.on('connect', () => {
      void this.subscribeAll(socket).then((ok) => {
        this.handlers.state(ok);
        this.handlers.connected();
      });
    });
    socket.on('disconnect', (reason) => {
      this.handlers.state(false);
      // The server closes a socket whose session ended (signed out elsewhere, expired, suspended). Socket.IO
      // never retries that by itself: connecting again either brings a refreshed token in or ends in a refusal.
      if (reason === 'io server disconnect' && !this.closed) socket.connect();
    });
    socket.on('connect_error', (error: { data?: { code?: string; retry_after?: number } }) => {
      this.handlers.state(false);
      if (error?.data?.code === 'unauthenticated') this.handlers.refused();
      // The client never retries a refusal by itself; this one (the server's database is away) is worth retrying.
      else if (error?.data?.code === 'database_unavailable') setTimeout(() => this.socket === socket && !this.closed && socket.connect(), 1000 * (error.data.retry_after ?? 5));
    });
    socket.onAny((_name, envelope) => {
      if (envelope && typeof envelope === 'object' && envelope.data) this.handlers.event(envelope);
    });
  }

  /** Follows one thread (its deltas and notes arrive on its own channel only); null follows none. */
  watch(conversationId: string | null): void {
    const previous = this.thread;
    if (previous === conversationId) return;
    this.thread = conversationId;
    const socket = this.socket;
    if (!socket?.connected) return; // subscribed on connect
    if (previous) void socket.timeout(ACK_MS).emitWithAck('unsubscribe', { channel: `private-conversation.${previous}` }).catch(() => undefined);
    if (conversationId) void this.subscribeThread(socket, conversationId);
  }

  /** Tells whoever watches the conversation (the visitor included) that this agent is typing; best effort. */
  typing(conversationId: string, typing: boolean): void {
    if (this.socket?.connected) void this.socket.timeout(ACK_MS).emitWithAck('typing', { conversation_id: conversationId, typing }).catch(() => undefined);
  }

  stop(): void {
    this.closed = true;
    this.socket?.disconnect();
    this.socket = null;
  }

  private async subscribeAll(socket: Socket): Promise<boolean> {
    const [company] = await Promise.all([
      this.subscribe(socket, `private-company.${this.companyId}`),
      this.subscribe(socket, `private-user.${this.userId}`),
      this.thread && this.subscribeThread(socket, this.thread),
    ]);
    return company;
  }

  private async subscribeThread(socket: Socket, conversationId: string): Promise<void> {
    if ((await this.subscribe(socket, `private-conversation.${conversationId}`)) && this.thread === conversationId) this.handlers.watching(conversationId);
  }

  /** Without a subscription the app still works through HTTP; the next reconnect tries again. */
  private async subscribe(socket: Socket, channel: string): Promise<boolean> {
    try {
      const { auth } = await post<{ auth: string }>('broadcasting/auth', { socket_id: socket.id, channel_name: channel });
      const ack = await socket.timeout(ACK_MS).emitWithAck('subscribe', { channel, auth });
      return ack.ok;
    } catch {
      return false;
    }
  }
}
