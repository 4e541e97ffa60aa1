import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import { conversationChannel } from '../../src/realtime/channels';

/** The events an agent who has a conversation open follows on its `private-conversation.<uuid>`. */
export const WATCHED_EVENTS = ['message.created', 'typing', 'conversation.watchers'] as const;
export type WatchedEvent = (typeof WATCHED_EVENTS)[number];

interface Envelope {
  channel: string;
  event: string;
  seq: number;
  data: Record<string, unknown>;
}

/** One event as this agent's socket received it, with the time (performance.now()) it arrived. */
export interface Received {
  event: WatchedEvent;
  conversationId: string;
  seq: number;
  data: Record<string, unknown>;
  at: number;
}

/**
 * One agent of the live-inbox bench: a socket on a node of its own, subscribed to a few
 * conversations' channels as the agent app does when they are open (watching), recording every
 * event it receives. Typing and replying go through the same socket and the same node.
 */
export class LiveAgent {
  readonly received: Received[] = [];
  /** When each watched conversation's subscription was acknowledged (epoch ms): from then on, nothing may be missed. */
  readonly watchingSince = new Map<string, number>();
  disconnects = 0;

  private constructor(
    readonly index: number,
    readonly userId: number,
    readonly node: number,
    readonly url: string,
    private readonly token: string,
    private readonly socket: Socket,
  ) {
    for (const event of WATCHED_EVENTS) socket.on(event, (envelope: Envelope) => this.note(event, envelope));
    socket.on('disconnect', () => void this.disconnects++);
  }

  static async connect(index: number, userId: number, node: number, url: string, token: string): Promise<LiveAgent> {
    const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true, timeout: 30_000 });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    return new LiveAgent(index, userId, node, url, token, socket);
  }

  private note(event: WatchedEvent, envelope: Envelope): void {
    const at = performance.now();
    const prefix = 'private-conversation.';
    if (!envelope.channel.startsWith(prefix)) return;
    this.received.push({ event, conversationId: envelope.channel.slice(prefix.length), seq: envelope.seq, data: envelope.data, at });
  }

  /** As the agent app opens a conversation: the channel signed over HTTP, then subscribed on the socket. */
  async watch(conversationId: string): Promise<void> {
    const channel = conversationChannel(conversationId);
    const signed = await this.post('/api/agent/broadcasting/auth', { socket_id: this.socket.id, channel_name: channel });
    if (signed.status !== 200) throw new Error(`broadcasting/auth answered ${signed.status}: ${await signed.text()}`);
    const { auth } = (await signed.json()) as { auth: string };
    const ack = (await this.socket.timeout(30_000).emitWithAck('subscribe', { channel, auth })) as { ok: boolean; message?: string };
    if (!ack.ok) throw new Error(`subscribe refused: ${ack.message ?? ''}`);
    this.watchingSince.set(conversationId, Date.now());
  }

  async typing(conversationId: string, typing: boolean): Promise<boolean> {
    const ack = (await this.socket.timeout(30_000).emitWithAck('typing', { conversation_id: conversationId, typing })) as { ok: boolean };
    return ack.ok;
  }

  /** Resolves with the HTTP status; `sentAt` (performance.now()) is taken just before the request. */
  async reply(conversationId: string, body: string): Promise<{ status: number; sentAt: number }> {
    const sentAt = performance.now();
    const response = await this.post(`/api/agent/conversations/${conversationId}/reply`, { body });
    await response.arrayBuffer();
    return { status: response.status, sentAt };
  }

  private post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  close(): void {
    this.socket.close();
  }
}
