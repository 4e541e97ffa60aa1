import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';

const FIRST_RETRY_MS = 250;
/**
 * The longest wait between two attempts, and so the longest a node stays unready (its lock) or deaf
 * (its LISTEN) after PostgreSQL accepts connections again. It was 5 s: a load balancer that follows
 * /readyz kept every node out of rotation for up to 5 s after an outage of that length, with the
 * database back. A refused attempt costs next to nothing, and the pool tries one for every request
 * during an outage anyway, so waiting longer here spared the database nothing.
 */
const MAX_RETRY_MS = 1_000;

export interface DedicatedSessionOptions {
  url: string;
  /** What the session is for, in log lines ("database lock") and, prefixed, in pg_stat_activity. */
  purpose: string;
  logger: Logger;
  /** Runs on every new connection (LISTEN, take a lock) before it counts as open; a throw closes it. */
  prepare(client: pg.Client): Promise<void>;
  /** A `prepare` failure that ends the retries: the session closes and `stopped` fires with it. */
  isFinal?(error: unknown): boolean;
}

/**
 * A PostgreSQL connection of its own, kept for the process's life, for what only a session holds: an
 * advisory lock, a LISTEN. When it drops (PostgreSQL restarted, the session killed) it is opened and
 * prepared again with backoff, and `reopened` fires: whatever the session held or would have heard in
 * between is gone, and its owner must look again.
 */
export class DedicatedSession extends EventEmitter<{ reopened: []; stopped: [error: unknown] }> {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;

  private constructor(private readonly options: DedicatedSessionOptions) {
    super();
  }

  /** The first connection, prepared; its failure is thrown (no retries before the caller has a session). */
  static async open(options: DedicatedSessionOptions): Promise<DedicatedSession> {
    const session = new DedicatedSession(options);
    await session.connect();
    return session;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Ends the session (and with it whatever it held). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { url, purpose, logger, prepare } = this.options;
    const client = new pg.Client({ connectionString: url, application_name: `parley ${purpose}`, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    // An idle client reports a dropped connection as `error` (then `end`); without a listener it would crash the process.
    client.on('error', (error) => logger.warn({ err: error }, `${purpose} connection failed`));
    try {
      await client.connect();
      await prepare(client);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    client.on('end', () => this.dropped(client));
    this.client = client;
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    // A dependency going away, not a fault of this process: a warning, like every other outage line.
    this.options.logger.warn(`lost the ${this.options.purpose} connection; connecting again`);
    this.retryMs = FIRST_RETRY_MS;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.retry = setTimeout(() => void this.reconnect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private async reconnect(): Promise<void> {
    if (this.closed) return;
    try {
      await this.connect();
    } catch (error) {
      if (this.closed) return;
      if (this.options.isFinal?.(error)) {
        this.closed = true;
        this.emit('stopped', error);
        return;
      }
      this.options.logger.warn({ err: error, retryInMs: this.retryMs }, `could not open the ${this.options.purpose} connection again yet`);
      return this.scheduleReconnect();
    }
    if (this.connected) this.emit('reopened');
  }
}
