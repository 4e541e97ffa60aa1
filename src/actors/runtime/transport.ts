import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { WireError } from './errors';
import type { UntypedMessage } from './protocol';

/** What travels between nodes on their channels. Short keys: this is the hot path of every remote ask. */
export type Envelope =
  /** An ask for the actor `kind:id`; `r` is the caller's member id (its reply channel). */
  | { t: 'ask'; c: number; r: string; d: number; k?: string; s?: 1; kind: string; id: string; m: UntypedMessage }
  | { t: 'ok'; c: number; v: unknown }
  | { t: 'err'; c: number; e: WireError }
  | { t: 'chunk'; c: number; n: number; v: unknown }
  /** "Not owner": the receiver does not serve the shard; the caller re-resolves and retries. */
  | { t: 'moved'; c: number };

/** Point-to-point messages between members over Redis pub/sub: one channel per member. */
export interface Transport {
  /** Resolves with how many subscribers got it: 0 means the member is gone (or not yet listening). */
  send(member: string, envelope: Envelope): Promise<number>;
  close(): Promise<void>;
}

export class RedisTransport implements Transport {
  private constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly prefix: string,
  ) {}

  /** Subscribes to this member's channel before anyone can route to it. */
  static async open(
    pub: Redis,
    sub: Redis,
    prefix: string,
    self: string,
    receive: (envelope: Envelope) => void,
    logger: Logger,
  ): Promise<RedisTransport> {
    const transport = new RedisTransport(pub, sub, prefix);
    sub.on('message', (_channel: string, text: string) => {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch (error) {
        logger.warn({ err: error }, 'dropped an unreadable actor envelope');
        return;
      }
      receive(envelope);
    });
    await sub.subscribe(transport.channel(self));
    return transport;
  }

  send(member: string, envelope: Envelope): Promise<number> {
    return this.pub.publish(this.channel(member), JSON.stringify(envelope));
  }

  async close(): Promise<void> {
    await Promise.all([this.sub, this.pub].map((redis) => redis.quit().catch(() => redis.disconnect())));
  }

  private channel(member: string): string {
    return `${this.prefix}actors:${member}`;
  }
}
