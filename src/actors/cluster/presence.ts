import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterTiming } from './timing';

/**
 * Lua shared by the membership and lease scripts: `gone(prefix, member, now)` answers whether the
 * member's presence connection is gone, and since when (Redis ms), with the grace its owner declared.
 * A member registers `presence:<member>` = "<life> <grace>" only after its connection for that life
 * has subscribed to `presence:<member>:<life>`, and a life never subscribes again (each life is a new
 * connection), so "registered life, no subscriber" means that connection has closed for good. The
 * first script that sees it records when (`gone:<member>:<life>`); the grace counts from there.
 * Unregistered members (observers, an older version) are never found gone: their leases lapse.
 */
export const GONE_LUA = `
local function gone(prefix, member, now, keepMs)
  local registered = redis.call('GET', prefix .. 'presence:' .. member)
  if not registered then return nil end
  local life, grace = string.match(registered, '^(%d+) (%d+)$')
  if not life then return nil end
  local subscribed = redis.call('PUBSUB', 'NUMSUB', prefix .. 'presence:' .. member .. ':' .. life)
  if tonumber(subscribed[2]) > 0 then return nil end
  local noted = prefix .. 'gone:' .. member .. ':' .. life
  local since = tonumber(redis.call('GET', noted))
  if not since then
    since = now
    redis.call('SET', noted, string.format('%.0f', now), 'PX', keepMs)
  end
  return {since, tonumber(grace)}
end
local function redisNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/** Where a presence connection's life is subscribed (survivors check it with PUBSUB NUMSUB). */
export function presenceChannel(prefix: string, member: string, life: number): string {
  return `${prefix}presence:${member}:${life}`;
}

/** The CLIENT SETNAME of a member's presence connection, so operators (and tests) can find it in CLIENT LIST. */
export function presenceConnectionName(prefix: string, member: string): string {
  return `parley:presence:${prefix}${member}`;
}

/**
 * This node's presence connection: a dedicated Redis connection whose existence tells the others
 * that this process lives. `kill -9`, a crash or an OOM kill closes it at once (the kernel closes the
 * socket), so survivors take the node's shards a grace period after seeing it gone instead of
 * waiting out the lease TTL. A frozen or busy process keeps it, and is fenced by lease expiry.
 *
 * The other side of the bargain: the others may take this node's shards `goneGraceMs` after they
 * first saw the connection gone, so this node acts on its shards only while a ping sent on the
 * connection less than `goneGraceMs - presenceMarginMs` ago was answered (a ping answered proves the
 * connection was still up when Redis read it, so before anyone could see it gone). Each connection
 * is one life: it never reconnects; when it closes, this node drops its shards and opens a new life.
 */
export class Presence extends EventEmitter<{ lost: [reason: string] }> {
  private connection: Redis | undefined;
  private opening: Promise<number> | undefined;
  private lives = 0;
  /** The life whose connection is subscribed now (registered by the next membership script). */
  private current: number | undefined;
  /** performance.now() when the last answered ping of the current life was sent. */
  private vouchedSince = Number.NEGATIVE_INFINITY;
  private pinging = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    readonly member: string,
    private readonly timing: ClusterTiming,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** The life to register, once its connection is subscribed; undefined while none is. */
  get life(): number | undefined {
    return this.current;
  }

  /** performance.now() until which this node may act on its shards. */
  vouchedUntil(): number {
    return this.vouchedSince + this.timing.goneGraceMs - this.timing.presenceMarginMs;
  }

  /** Opens a new life unless one is up; resolves with its number once subscribed and vouched for. */
  open(): Promise<number> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    return (this.opening ??= this.openLife().finally(() => (this.opening = undefined)));
  }

  /** Ends the current life without reporting it (membership was lost anyway); the next join opens a new one. */
  reset(): void {
    const connection = this.connection;
    this.connection = undefined;
    this.current = undefined;
    this.vouchedSince = Number.NEGATIVE_INFINITY;
    connection?.disconnect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const connection = this.connection;
    this.connection = undefined;
    this.current = undefined;
    await connection?.quit().catch(() => connection.disconnect());
  }

  private async openLife(): Promise<number> {
    const life = ++this.lives;
    const connection = new Redis(this.url, {
      connectionName: presenceConnectionName(this.prefix, this.member),
      lazyConnect: true,
      // One connection per life: a reconnect (or a command replayed on one) would let a new
      // connection vouch for the old life that the others may already have found gone.
      retryStrategy: () => null,
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    connection.on('error', () => undefined); // a closed life is reported once, by 'close'
    try {
      await connection.connect();
      await connection.subscribe(presenceChannel(this.prefix, this.member, life));
    } catch (error) {
      connection.disconnect();
      throw error;
    }
    if (this.closed) {
      connection.disconnect();
      throw new Error('presence closed');
    }
    this.connection = connection;
    this.current = life;
    connection.once('close', () => this.ended(connection, life));
    await this.ping();
    this.timer ??= setInterval(() => void this.ping(), this.timing.presencePingMs);
    return life;
  }

  private ended(connection: Redis, life: number): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.current = undefined;
    this.vouchedSince = Number.NEGATIVE_INFINITY;
    if (this.closed) return;
    this.logger.warn({ node: this.member, life }, 'presence connection to Redis closed');
    this.emit('lost', 'its presence connection to Redis closed: the others may take its shards');
  }

  private async ping(): Promise<void> {
    const connection = this.connection;
    if (!connection || this.pinging) return;
    this.pinging = true;
    const sent = performance.now();
    try {
      await connection.ping();
      // Only an answer on the connection that is still this node's current life vouches for it.
      if (this.connection === connection) this.vouchedSince = Math.max(this.vouchedSince, sent);
    } catch {
      // Closed: 'close' reports it. Unanswered: the vouch simply ages.
    } finally {
      this.pinging = false;
    }
  }
}
